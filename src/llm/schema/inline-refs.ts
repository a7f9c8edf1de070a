/**
 * Local `$ref` inlining: providers refuse `$ref`/`$defs` (Gemini) or handle them unevenly, so every
 * reference into the schema itself (`#/$defs/x`, `#/definitions/x`, any JSON Pointer) is replaced
 * by what it points to. A cycle cannot be inlined and is refused; so is a reference outside the
 * schema (never fetched) or to an anchor, and a schema that would grow past MAX_INLINED_NODES.
 */
import { isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema-node.js';

/** Schema nodes an inlined schema may have at most: guards against exponential growth of shared definitions. */
export const MAX_INLINED_NODES = 20_000;

/** Keywords beside a `$ref` that only annotate: merged into the inlined copy without an `allOf`. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', '$comment']);

/** The outcome of inlining: the schema without references, or why it cannot be done. */
export type InlineResult = { readonly schema: JsonSchema } | { readonly error: string };

/** Inlines every local `$ref` of `schema`; `$defs` and `definitions` are dropped from the result. */
export function inlineRefs(schema: JsonSchema): InlineResult {
  let nodes = 0;
  const expand = (node: unknown, path: string, active: readonly string[]): unknown => {
    if (++nodes > MAX_INLINED_NODES) {
      throw new InlineError(`the schema grows past ${MAX_INLINED_NODES} nodes once its $refs are inlined`);
    }
    if (Array.isArray(node)) return node.map((item, index) => expand(item, `${path}/${index}`, active));
    if (!isSchemaObject(node)) return node;
    const ref = node.$ref;
    const rest: SchemaObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' || key === '$defs' || key === 'definitions') continue;
      // Values under these keywords are data, not schemas: copied as they are.
      rest[key] =
        key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
          ? value
          : expand(value, `${path}/${key}`, active);
    }
    if (ref === undefined) return rest;
    if (typeof ref !== 'string') throw new InlineError(`${path}/$ref is not a string`);
    if (active.includes(ref)) {
      throw new InlineError(`${path}/$ref "${ref}" is recursive (a cycle cannot be inlined)`);
    }
    const target = resolvePointer(schema, ref, path);
    const inlined = expand(target, ref, [...active, ref]);
    const siblings = Object.keys(rest);
    if (siblings.length === 0) return inlined;
    if (siblings.every((key) => ANNOTATIONS.has(key)) && isSchemaObject(inlined))
      return { ...inlined, ...rest };
    return { allOf: [inlined, rest] };
  };
  try {
    return { schema: expand(schema, '#', []) as JsonSchema };
  } catch (error) {
    if (error instanceof InlineError) return { error: error.message };
    throw error;
  }
}

class InlineError extends Error {}

function resolvePointer(root: JsonSchema, ref: string, path: string): unknown {
  if (!ref.startsWith('#')) {
    throw new InlineError(`${path}/$ref "${ref}" points outside the schema (never fetched)`);
  }
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw new InlineError(`${path}/$ref "${ref}" names an anchor; only JSON Pointer references are inlined`);
  }
  let node: unknown = root;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) {
      throw new InlineError(`${path}/$ref "${ref}" points to nothing in the schema`);
    }
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
