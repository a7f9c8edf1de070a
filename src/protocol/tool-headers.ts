/**
 * The `x-mcp-header` annotations of a tool's `inputSchema` (2026-07-28 §x-mcp-header): which
 * arguments a transport that routes by header (HTTP: `Mcp-Param-*`) mirrors, and whether the
 * annotations are valid at all (a tool with an invalid one is left out of tools/list).
 */

/** RFC 9110 `token`: what an `x-mcp-header` value may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Where one `x-mcp-header` value comes from: a path of `properties` keys from the schema root. */
export interface HeaderBinding {
  readonly header: string;
  readonly path: readonly string[];
}

export type ToolHeaderCheck = { ok: true; bindings: HeaderBinding[] } | { ok: false; reason: string };

const ALLOWED_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * Checks a tool's `inputSchema` for `x-mcp-header` annotations (2026-07-28 §x-mcp-header): each
 * must be a non-empty RFC 9110 token, unique ignoring case, on a string, integer or boolean
 * property reached only through `properties` keys. An annotation anywhere else fails the tool.
 */
export function checkToolHeaders(inputSchema: unknown): ToolHeaderCheck {
  const bindings: HeaderBinding[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  const reachable = new Set<object>();

  const visitStatic = (schema: unknown, path: string[]): void => {
    if (problem || typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
    reachable.add(schema);
    const node = schema as Record<string, unknown>;
    if (path.length > 0 && Object.hasOwn(node, 'x-mcp-header')) {
      const header = node['x-mcp-header'];
      const where = `property ${path.join('.')}`;
      if (typeof header !== 'string' || header.length === 0) {
        problem = `x-mcp-header on ${where} must be a non-empty string`;
        return;
      }
      if (!TOKEN.test(header)) {
        problem = `x-mcp-header ${JSON.stringify(header)} on ${where} is not a valid header name (RFC 9110 token)`;
        return;
      }
      if (typeof node.type !== 'string' || !ALLOWED_TYPES.has(node.type)) {
        problem = `x-mcp-header ${JSON.stringify(header)} on ${where} needs a string, integer or boolean property, got type ${JSON.stringify(node.type)}`;
        return;
      }
      const lower = header.toLowerCase();
      if (seen.has(lower)) {
        problem = `x-mcp-header ${JSON.stringify(header)} is used twice (names ignore case)`;
        return;
      }
      seen.add(lower);
      bindings.push({ header, path: [...path] });
    }
    const properties = node.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [name, child] of Object.entries(properties)) visitStatic(child, [...path, name]);
    }
  };
  visitStatic(inputSchema, []);
  if (problem) return { ok: false, reason: problem };

  // An annotation the static walk did not reach sits under items, oneOf, $ref and the like.
  const findStray = (value: unknown, depth: number): boolean => {
    if (depth > 64 || typeof value !== 'object' || value === null) return false;
    if (Array.isArray(value)) return value.some((item) => findStray(item, depth + 1));
    if (!reachable.has(value) && Object.hasOwn(value, 'x-mcp-header')) return true;
    return Object.values(value).some((child) => findStray(child, depth + 1));
  };
  if (findStray(inputSchema, 0)) {
    return {
      ok: false,
      reason: 'x-mcp-header sits on a property that is not reached through properties alone',
    };
  }
  return { ok: true, bindings };
}
