/**
 * The rewrite OpenAI's strict mode needs (`strict: true` on a function tool), from an inlined schema:
 * every object closed (`additionalProperties: false`) with every property required, the optional
 * ones made nullable (restore-arguments.ts drops the nulls the model sends for them again), `oneOf`
 * read as `anyOf`, and the keywords strict mode refuses moved into the description where dropping
 * them only loosens the schema. A schema whose meaning cannot be kept throws NotStrictError: the
 * tool is then offered without strict mode. Rules: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */
import {
  admitsNull,
  describeKeyword,
  isSchemaObject,
  type JsonSchema,
  type SchemaObject,
  typesOf,
  typesOrInferred,
  withNote,
} from './json-schema-node.js';

/** Why a schema has no strict form. */
export class NotStrictError extends Error {}

/** String formats strict mode accepts (the structured-outputs guide's list). */
export const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const NUMERIC = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
/** Validation keywords strict mode refuses whose removal only loosens the schema: kept as a note. */
const LOOSENED = new Set([
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'propertyNames',
]);
/** Keywords whose removal would change the meaning: such a schema gets no strict form. */
const STRUCTURAL = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  'additionalItems',
]);
const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'enum',
  'const',
  'description',
  'title',
  'pattern',
  'format',
  'minItems',
  'maxItems',
]);

/** The strict form of an inlined tool input schema (root: an object). Throws NotStrictError. */
export function toStrictSchema(schema: JsonSchema): SchemaObject {
  if (!isSchemaObject(schema)) throw new NotStrictError('the input schema is not an object schema');
  if (schema.anyOf !== undefined || schema.oneOf !== undefined) {
    throw new NotStrictError('the root of the input schema is a union (anyOf/oneOf)');
  }
  return strictNode({ type: 'object', ...schema }, '#', true);
}

function strictNode(node: unknown, path: string, root = false): SchemaObject {
  if (node === false) throw new NotStrictError(`${path} accepts no value`);
  if (!isSchemaObject(node)) throw new NotStrictError(`${path} accepts any value`);
  const notes: string[] = [];
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (STRUCTURAL.has(key)) throw new NotStrictError(`${path} uses ${key}`);
    if (HANDLED.has(key) && key !== 'format' && key !== 'pattern') continue;
    if (key === 'format') {
      if (typeof value === 'string' && STRICT_FORMATS.has(value)) out.format = value;
      else notes.push(describeKeyword(key, value));
    } else if (key === 'pattern') {
      if (typeof value === 'string') out.pattern = value;
      else notes.push(describeKeyword(key, value));
    } else if (NUMERIC.has(key)) {
      if (typeof value === 'number') out[key] = value;
      else notes.push(describeKeyword(key, value));
    } else if (LOOSENED.has(key)) {
      notes.push(describeKeyword(key, value));
    }
    // Anything else ($schema, $id, $comment, examples, readOnly, unknown keywords) only annotates.
  }
  if (typeof node.title === 'string') out.title = node.title;
  if (typeof node.description === 'string') out.description = node.description;
  const shaped = shape(node, out, path, root, notes);
  return withNote(shaped, notes.join('; '));
}

function shape(
  node: SchemaObject,
  out: SchemaObject,
  path: string,
  root: boolean,
  notes: string[],
): SchemaObject {
  const branches = node.anyOf ?? node.oneOf;
  if (branches !== undefined) {
    if (!Array.isArray(branches) || branches.length === 0)
      throw new NotStrictError(`${path} has an empty union`);
    const typed = ['type', 'properties', 'items', 'enum', 'const'].some((key) => key in node);
    if (typed) throw new NotStrictError(`${path} has a union beside type keywords`);
    if (node.oneOf !== undefined) notes.push('exactly one of these forms');
    const key = node.anyOf !== undefined ? 'anyOf' : 'oneOf';
    return { ...out, anyOf: branches.map((branch, index) => strictNode(branch, `${path}/${key}/${index}`)) };
  }
  if (Array.isArray(node.enum) || 'const' in node) return literal(node, out, path);
  const declared = typesOrInferred(node);
  if (declared === undefined || declared.length === 0) throw new NotStrictError(`${path} accepts any value`);
  const nonNull = declared.filter((type) => type !== 'null');
  if (nonNull.length > 1) {
    const options = nonNull.map((type, index) => strictNode({ ...node, type }, `${path}/type/${index}`));
    if (declared.includes('null')) options.push({ type: 'null' });
    return { ...out, anyOf: options };
  }
  const type = nonNull[0] ?? 'null';
  const typeValue = declared.includes('null') && type !== 'null' ? [type, 'null'] : type;
  if (type === 'object') return strictObject(node, { ...out, type: typeValue }, path, root);
  if (type === 'array') {
    if (!isSchemaObject(node.items) && node.items !== true)
      throw new NotStrictError(`${path} is an array without an items schema`);
    const result: SchemaObject = { ...out, type: typeValue, items: strictNode(node.items, `${path}/items`) };
    for (const key of ['minItems', 'maxItems']) if (typeof node[key] === 'number') result[key] = node[key];
    return result;
  }
  if (!['string', 'number', 'integer', 'boolean', 'null'].includes(type)) {
    throw new NotStrictError(`${path} has an unknown type "${type}"`);
  }
  return { ...out, type: typeValue };
}

function strictObject(node: SchemaObject, out: SchemaObject, path: string, root: boolean): SchemaObject {
  const properties = isSchemaObject(node.properties) ? node.properties : {};
  const names = Object.keys(properties);
  const extra = node.additionalProperties;
  if (extra !== undefined && extra !== false && extra !== true) {
    throw new NotStrictError(`${path} accepts extra properties by a schema (additionalProperties)`);
  }
  if (names.length === 0 && extra !== false && !root) {
    throw new NotStrictError(`${path} is an object with any properties`);
  }
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const strictProperties: SchemaObject = {};
  for (const name of names) {
    const converted = strictNode(properties[name], `${path}/properties/${name}`);
    strictProperties[name] = required.has(name) ? converted : nullable(converted);
  }
  return { ...out, properties: strictProperties, required: names, additionalProperties: false };
}

function literal(node: SchemaObject, out: SchemaObject, path: string): SchemaObject {
  const values = Array.isArray(node.enum) ? node.enum : [node.const];
  const kinds = new Set(values.map(jsonType));
  if (kinds.has('object') || kinds.has('array'))
    throw new NotStrictError(`${path} lists object or array values`);
  const declared = typesOf(node);
  const types = declared ?? [...kinds];
  const kept = values.filter(
    (value) => types.includes(jsonType(value)) || (types.includes('number') && jsonType(value) === 'integer'),
  );
  if (kept.length === 0) throw new NotStrictError(`${path} accepts no value`);
  const type = types.length === 1 ? types[0] : types;
  return { ...out, type, enum: kept };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `schema` also accepting null: its type widened, an enum given null, a union given a null branch. */
export function nullable(schema: SchemaObject): SchemaObject {
  if (admitsNull(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  const types = typesOf(schema);
  if (types === undefined) return { anyOf: [schema, { type: 'null' }] };
  const widened: SchemaObject = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
  return widened;
}
