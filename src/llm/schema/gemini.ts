/**
 * An inlined JSON Schema as the Gemini API's `Schema` (the OpenAPI 3.0 subset function declarations
 * take, https://ai.google.dev/api/caching#Schema): upper-case types, `nullable` for null, `anyOf`
 * for other unions, `enum` on strings only, formats limited per type. Keywords Gemini has no field
 * for are moved into the description where dropping them only loosens the schema; a schema whose
 * meaning would change (`allOf`, tuples, any-value nodes, mixed enums) throws NotRepresentableError.
 */
import {
  describeKeyword,
  isSchemaObject,
  type JsonSchema,
  type SchemaObject,
  typesOrInferred,
  withNote,
} from './json-schema-node.js';

/** Why a schema has no Gemini form. */
export class NotRepresentableError extends Error {}

/** Formats the Schema page lists per type (string: `enum`, `date-time`; number: float, double; integer: int32, int64). */
export const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};
const GEMINI_TYPE: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};
/** JSON Schema keywords copied as they are (the Schema object has a field of the same name and meaning). */
const COPIED = [
  'title',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
];
const REFUSED = new Set(['allOf', 'prefixItems', 'additionalItems']);
const HANDLED = new Set([
  ...COPIED,
  'type',
  'description',
  'properties',
  'required',
  'items',
  'anyOf',
  'oneOf',
  'enum',
  'const',
  'format',
  'pattern',
  'default',
  'additionalProperties',
  '$schema',
  '$id',
  '$comment',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** The Gemini `parameters` of a tool: undefined when it takes no arguments. Throws NotRepresentableError. */
export function toGeminiParameters(schema: JsonSchema): SchemaObject | undefined {
  if (!isSchemaObject(schema)) throw new NotRepresentableError('the input schema is not an object schema');
  const root = geminiNode({ type: 'object', ...schema }, '#');
  if (root.type !== 'OBJECT')
    throw new NotRepresentableError('the root of the input schema is not an object');
  if (root.properties === undefined) return undefined;
  return root;
}

function geminiNode(node: unknown, path: string): SchemaObject {
  if (node === false) throw new NotRepresentableError(`${path} accepts no value`);
  if (!isSchemaObject(node))
    throw new NotRepresentableError(`${path} accepts any JSON value; a Gemini Schema needs a type`);
  const notes: string[] = [];
  for (const key of Object.keys(node)) {
    if (REFUSED.has(key))
      throw new NotRepresentableError(`${path} uses ${key}, which Gemini has no form for`);
    if (!HANDLED.has(key)) notes.push(describeKeyword(key, node[key]));
  }
  if (Array.isArray(node.items)) throw new NotRepresentableError(`${path} is a tuple (items as an array)`);
  const out: SchemaObject = typeof node.description === 'string' ? { description: node.description } : {};
  const shaped = shape(node, out, path, notes);
  for (const key of COPIED)
    if (typeof node[key] === 'number' || (key === 'title' && typeof node[key] === 'string'))
      shaped[key] = node[key];
  if (typeof node.pattern === 'string' && shaped.type === 'STRING') shaped.pattern = node.pattern;
  else if ('pattern' in node) notes.push(describeKeyword('pattern', node.pattern));
  if (node.default !== undefined && typeof node.default !== 'object') shaped.default = node.default;
  else if (node.default !== undefined) notes.push(describeKeyword('default', node.default));
  return withNote(shaped, notes.join('; '));
}

function shape(node: SchemaObject, out: SchemaObject, path: string, notes: string[]): SchemaObject {
  const branches = node.anyOf ?? node.oneOf;
  if (branches !== undefined) {
    if (!Array.isArray(branches) || branches.length === 0)
      throw new NotRepresentableError(`${path} has an empty union`);
    if (['type', 'properties', 'items', 'enum', 'const'].some((key) => key in node)) {
      throw new NotRepresentableError(`${path} has a union beside type keywords`);
    }
    if (node.oneOf !== undefined) notes.push('exactly one of these forms');
    const key = node.anyOf !== undefined ? 'anyOf' : 'oneOf';
    const isNull = (branch: unknown) =>
      isSchemaObject(branch) && branch.type === 'null' && Object.keys(branch).length === 1;
    const nullable = branches.some(isNull);
    const rest = branches.filter((branch) => !isNull(branch));
    const converted = rest.map((branch, index) => geminiNode(branch, `${path}/${key}/${index}`));
    if (converted.length === 0) throw new NotRepresentableError(`${path} accepts only null`);
    const merged: SchemaObject =
      converted.length === 1
        ? withNote({ ...converted[0], ...out }, String(converted[0]!.description ?? ''))
        : { ...out, anyOf: converted };
    if (nullable) merged.nullable = true;
    return merged;
  }
  if (Array.isArray(node.enum) || 'const' in node) return literal(node, out, path, notes);
  const declared = typesOrInferred(node);
  if (declared === undefined)
    throw new NotRepresentableError(`${path} names no type; a Gemini Schema needs one`);
  const nonNull = declared.filter((type) => type !== 'null');
  if (nonNull.length === 0) throw new NotRepresentableError(`${path} accepts only null`);
  const result: SchemaObject =
    nonNull.length > 1
      ? {
          ...out,
          anyOf: nonNull.map((type, index) =>
            geminiNode({ ...node, type, description: undefined }, `${path}/type/${index}`),
          ),
        }
      : typed(node, nonNull[0]!, out, path, notes);
  if (declared.includes('null')) result.nullable = true;
  return result;
}

function typed(
  node: SchemaObject,
  jsonType: string,
  out: SchemaObject,
  path: string,
  notes: string[],
): SchemaObject {
  const type = GEMINI_TYPE[jsonType];
  if (type === undefined) throw new NotRepresentableError(`${path} has an unknown type "${jsonType}"`);
  const result: SchemaObject = { ...out, type };
  if (typeof node.format === 'string' && GEMINI_FORMATS[type]?.includes(node.format))
    result.format = node.format;
  else if ('format' in node) notes.push(describeKeyword('format', node.format));
  if (type === 'OBJECT') {
    const properties = isSchemaObject(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    const required = Array.isArray(node.required) ? node.required : [];
    if (names.length > 0) {
      result.properties = Object.fromEntries(
        names.map((name) => [name, geminiNode(properties[name], `${path}/properties/${name}`)]),
      );
      const listed = required.filter((name) => names.includes(name));
      if (listed.length > 0) result.required = listed;
    }
    const unlisted = required.filter((name) => !names.includes(name));
    if (unlisted.length > 0) notes.push(`also required: ${unlisted.join(', ')}`);
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false) {
      notes.push(
        extra === true
          ? 'other properties allowed'
          : `other properties: ${JSON.stringify(extra).slice(0, 300)}`,
      );
    }
  } else if ('additionalProperties' in node || 'properties' in node) {
    notes.push('object keywords apply when the value is an object');
  }
  if (type === 'ARRAY' && node.items !== undefined) result.items = geminiNode(node.items, `${path}/items`);
  return result;
}

function literal(node: SchemaObject, out: SchemaObject, path: string, notes: string[]): SchemaObject {
  const values = Array.isArray(node.enum) ? node.enum : [node.const];
  const nullable = values.includes(null);
  const rest = values.filter((value) => value !== null);
  if (rest.length === 0) throw new NotRepresentableError(`${path} accepts only null`);
  const kinds = new Set(
    rest.map((value) => (typeof value === 'number' && !Number.isInteger(value) ? 'number' : typeof value)),
  );
  let result: SchemaObject;
  if (kinds.size === 1 && kinds.has('string')) {
    result = { ...out, type: 'STRING', enum: rest, format: 'enum' };
  } else if (kinds.size === 1 && (kinds.has('number') || kinds.has('boolean'))) {
    const integers = rest.every((value) => Number.isInteger(value));
    result = { ...out, type: kinds.has('boolean') ? 'BOOLEAN' : integers ? 'INTEGER' : 'NUMBER' };
    notes.push(`one of: ${rest.map((value) => JSON.stringify(value)).join(', ')}`);
  } else if (kinds.size === 2 && kinds.has('number') && rest.every((value) => typeof value === 'number')) {
    result = { ...out, type: 'NUMBER' };
    notes.push(`one of: ${rest.map((value) => JSON.stringify(value)).join(', ')}`);
  } else {
    throw new NotRepresentableError(
      `${path} lists values of several kinds or objects, which a Gemini enum cannot hold`,
    );
  }
  if (nullable) result.nullable = true;
  return result;
}
