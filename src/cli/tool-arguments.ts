import { readFileSync } from 'node:fs';
import type { Tool } from '../index.js';
import { UsageProblem } from './exit-codes.js';

type Schema = Record<string, unknown>;
/** JSON types, with integer apart from number. */
type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) within the tool's input schema. */
function resolveRef(schema: Schema, root: Schema, depth: number): Schema | undefined {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/') || depth > 20) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

/**
 * Every JSON type a schema accepts: `type` (a string or an array), `anyOf`/`oneOf` branches
 * (which is how pydantic and FastMCP describe optional parameters), `allOf` (all must hold),
 * `const` and `enum` values, local `$ref`s. Undefined when the schema does not say (anything goes).
 */
export function acceptedTypes(schema: unknown, root: Schema, depth = 0): Set<JsonType> | undefined {
  if (typeof schema !== 'object' || schema === null || depth > 20) return undefined;
  const node = schema as Schema;
  const referenced = resolveRef(node, root, depth);
  if (referenced) return acceptedTypes(referenced, root, depth + 1);
  let types: Set<JsonType> | undefined;
  const narrow = (next: Set<JsonType> | undefined) => {
    if (next === undefined) return;
    types = types === undefined ? next : new Set([...types].filter((type) => next.has(type)));
  };
  if (typeof node.type === 'string') narrow(new Set([node.type as JsonType]));
  if (Array.isArray(node.type)) narrow(new Set(node.type as JsonType[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    const union = new Set<JsonType>();
    let open = false;
    for (const branch of branches) {
      const branchTypes = acceptedTypes(branch, root, depth + 1);
      if (branchTypes === undefined) open = true;
      else for (const type of branchTypes) union.add(type);
    }
    if (!open) narrow(union);
  }
  if (Array.isArray(node.allOf)) for (const part of node.allOf) narrow(acceptedTypes(part, root, depth + 1));
  const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values) narrow(new Set(values.map(typeOf)));
  // A number schema accepts integers too.
  if (types?.has('number')) types.add('integer');
  return types;
}

/** The JSON type of a value, with integer apart from number. */
export function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The types to name: integer goes without saying where number is accepted. */
function shownTypes(types: Set<JsonType>): JsonType[] {
  return [...types].filter((type) => !(type === 'integer' && types.has('number')));
}

export function listTypes(types: Set<JsonType>): string {
  return shownTypes(types)
    .map((type) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`))
    .join(' or ');
}

/**
 * One `--arg` value, typed by what the schema accepts: a value that parses as JSON of an accepted
 * type is sent as that type (`5` as a number, `null` as null, `["a"]` as an array); otherwise,
 * when a string is accepted or `strict` is off (`--no-validate`), as the string written;
 * otherwise a usage error naming the types.
 */
function typeArgument(key: string, raw: string, schema: unknown, root: Schema, strict = true): unknown {
  const types = acceptedTypes(schema, root);
  // A parameter the schema does not type (or does not name) gets the text as written.
  if (types === undefined || (types.size === 1 && types.has('string'))) return raw;
  let parsed: unknown;
  let parses = true;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parses = false;
  }
  if (parses && types.has(typeOf(parsed))) return parsed;
  if (types.has('string') || !strict) return raw;
  throw new UsageProblem(`--arg ${key} must be ${listTypes(types)} (as JSON), got ${JSON.stringify(raw)}`);
}

/** The command line's `--args`, stdin read first when it is `-`; none: no arguments. */
export async function argsOption(argsJson: string | undefined): Promise<Record<string, unknown>> {
  if (argsJson === undefined) return {};
  // stdin read as a stream: `readFileSync(0)` fails with EAGAIN when stdin is a pipe in
  // non-blocking mode that the writer has not filled yet (a large input, a busy machine).
  const chunks: Buffer[] = [];
  if (argsJson === '-') for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return readArgsJson(argsJson, Buffer.concat(chunks).toString('utf8'));
}

/** Reads `--args`: a JSON object, `@file.json`, or `-` for stdin (`stdinText`, read already). */
export function readArgsJson(value: string, stdinText = ''): Record<string, unknown> {
  let text = value;
  let source = '--args';
  if (value === '-') {
    text = stdinText;
    source = '--args - (stdin)';
  } else if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageProblem(
        `--args ${value}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    source = `--args ${value}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageProblem(`${source} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageProblem(`${source} must be a JSON object, e.g. --args '{"path":"/tmp"}'`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * The tool's arguments: `--args` first, then each `--arg`, typed by the tool's input schema;
 * `strict` off (`--no-validate`): a value the schema would refuse is sent as written.
 */
export function toolArguments(
  base: Record<string, unknown>,
  args: ReadonlyArray<[string, string]>,
  tool: Tool | undefined,
  strict = true,
): Record<string, unknown> {
  const result = { ...base };
  const root = (tool?.inputSchema ?? {}) as Schema;
  const properties = (root.properties ?? {}) as Record<string, unknown>;
  for (const [key, raw] of args) {
    const schema = Object.hasOwn(properties, key)
      ? properties[key]
      : (root.additionalProperties ?? undefined);
    result[key] = typeArgument(key, raw, schema, root, strict);
  }
  return result;
}

/** `name: type` for each parameter, `*` after a required one: `path*: string, limit: integer|null`. */
export function describeParameters(tool: Tool): string {
  const root = (tool.inputSchema ?? {}) as Schema;
  const properties = (root.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(root.required) ? (root.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, schema]) => {
      const types = acceptedTypes(schema, root);
      return `${name}${required.has(name) ? '*' : ''}: ${types ? shownTypes(types).join('|') : 'any'}`;
    })
    .join(', ');
}
