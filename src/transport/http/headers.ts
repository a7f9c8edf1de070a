import { HEADER_MISMATCH } from '../../jsonrpc/error-codes.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { META_PROTOCOL_VERSION } from '../../protocol/meta.js';

/** Methods whose `Mcp-Name` header mirrors a body value (2026-07-28 §Standard Request Headers). */
const NAME_PARAM: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** RFC 9110 `token`: what an `x-mcp-header` value may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The modern protocol version a message declares in `_meta`, if any. */
export function modernVersionOf(message: { params?: JsonObject }): string | undefined {
  const version = (message.params?._meta as JsonObject | undefined)?.[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/**
 * A header value as the spec encodes it: plain when it is visible ASCII or inner spaces, else
 * `=?base64?<UTF-8 Base64>?=`; also encoded when it has leading or trailing spaces or looks like
 * the sentinel itself. Never lets CR, LF, NUL or TAB into a header.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x20-\x7e]*$/.test(value) &&
    !value.startsWith(' ') &&
    !value.endsWith(' ') &&
    !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A tool argument as header text: strings as they are, integers in decimal, booleans lowercase. */
export function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

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

/** The `Mcp-Param-*` headers for one `tools/call`: only for values present and not null. */
export function paramHeaders(bindings: readonly HeaderBinding[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { header, path } of bindings) {
    let value: unknown = args;
    for (const key of path) {
      value =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    const text = headerText(value);
    if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * The routing headers of a modern POST: `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name`
 * for tools/call, prompts/get and resources/read.
 */
export function modernHeaders(
  message: { method: string; params?: JsonObject },
  version: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'mcp-protocol-version': version,
    'mcp-method': message.method,
  };
  const nameKey = NAME_PARAM[message.method];
  const name = nameKey ? message.params?.[nameKey] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/** True if an error body is one JSON-RPC error with code -32020 (HeaderMismatch). */
export function isHeaderMismatch(body: Buffer | string): boolean {
  try {
    const value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8')) as {
      error?: { code?: unknown };
    } | null;
    return value?.error?.code === HEADER_MISMATCH;
  } catch {
    return false;
  }
}
