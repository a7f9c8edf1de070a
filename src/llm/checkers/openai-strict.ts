/**
 * The subset of JSON Schema OpenAI accepts for a function tool with `strict: true`, written from
 * the structured-outputs guide, https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * (function calling: https://platform.openai.com/docs/guides/function-calling#strict-mode):
 * the root is an object and not `anyOf`; every object has `additionalProperties: false` and lists
 * every property in `required`; the types are string, number, integer, boolean, object, array and
 * null, combined with `anyOf`, `enum` and `const`; strings may carry `pattern` and the listed
 * `format`s, numbers `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`, arrays
 * `minItems`/`maxItems`; at most 5,000 object properties, 10 levels of nesting, 1,000 enum values,
 * 120,000 characters of property names, enum and const values, and 15,000 characters for one
 * string enum of more than 250 values.
 */
import { isSchemaObject, type SchemaObject, typesOf } from '../schema/json-schema-node.js';
import { STRICT_FORMATS } from '../schema/strict.js';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const ALLOWED = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** Limits from the guide's "Objects have limitations on nesting depth and size" section. */
export const OPENAI_STRICT_LIMITS = {
  /** Most object properties in the whole schema. */
  properties: 5_000,
  /** Deepest object nesting. */
  nesting: 10,
  /** Most enum values in the whole schema. */
  enumValues: 1_000,
  /** Longest total of property names, enum values and const values, characters. */
  totalStringLength: 120_000,
  /** Longest total length of the values of one enum with more than `largeEnumThreshold` values, characters. */
  largeEnumStringLength: 15_000,
  /** An enum with more than this many values is held to `largeEnumStringLength`. */
  largeEnumThreshold: 250,
} as const;

/** Every way `schema` breaks OpenAI's strict subset, as `#/path: problem`; empty when it conforms. */
export function checkOpenAIStrict(schema: unknown): string[] {
  const problems: string[] = [];
  const totals = { properties: 0, enumValues: 0, stringLength: 0 };
  if (!isSchemaObject(schema)) return ['#: the parameters are not a schema object'];
  if (schema.type !== 'object') problems.push('#: the root type is not "object"');
  if ('anyOf' in schema) problems.push('#: the root is anyOf');
  walk(schema, '#', 0, problems, totals);
  const limits = OPENAI_STRICT_LIMITS;
  if (totals.properties > limits.properties)
    problems.push(`#: ${totals.properties} properties (at most ${limits.properties})`);
  if (totals.enumValues > limits.enumValues)
    problems.push(`#: ${totals.enumValues} enum values (at most ${limits.enumValues})`);
  if (totals.stringLength > limits.totalStringLength) {
    problems.push(
      `#: ${totals.stringLength} characters of names and values (at most ${limits.totalStringLength})`,
    );
  }
  return problems;
}

function walk(
  node: unknown,
  path: string,
  depth: number,
  problems: string[],
  totals: { properties: number; enumValues: number; stringLength: number },
): void {
  if (!isSchemaObject(node)) {
    problems.push(`${path}: not a schema object`);
    return;
  }
  for (const key of Object.keys(node))
    if (!ALLOWED.has(key)) problems.push(`${path}: keyword ${key} is not supported`);
  const types = typesOf(node);
  if ('type' in node && types === undefined)
    problems.push(`${path}: type is neither a string nor an array of strings`);
  for (const type of types ?? [])
    if (!TYPES.has(type)) problems.push(`${path}: type "${type}" is not supported`);
  if (types === undefined && !('anyOf' in node) && !('enum' in node) && !('const' in node)) {
    problems.push(`${path}: no type, anyOf, enum or const`);
  }
  if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format))
    problems.push(`${path}: format "${node.format}" is not supported`);
  if ('pattern' in node && typeof node.pattern !== 'string')
    problems.push(`${path}: pattern is not a string`);
  literals(node, path, problems, totals);
  if (types?.includes('object')) {
    if (depth >= OPENAI_STRICT_LIMITS.nesting)
      problems.push(`${path}: nested deeper than ${OPENAI_STRICT_LIMITS.nesting} levels`);
    if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    const properties = isSchemaObject(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    const required = Array.isArray(node.required) ? node.required : [];
    for (const name of names) {
      if (!required.includes(name)) problems.push(`${path}: property ${name} is not required`);
      totals.properties++;
      totals.stringLength += name.length;
      walk(properties[name], `${path}/properties/${name}`, depth + 1, problems, totals);
    }
    for (const name of required)
      if (!names.includes(name)) problems.push(`${path}: required ${String(name)} is not a property`);
  } else if ('properties' in node || 'additionalProperties' in node) {
    problems.push(`${path}: object keywords on a node whose type is not object`);
  }
  if (types?.includes('array')) {
    if (!('items' in node)) problems.push(`${path}: an array without items`);
    else walk(node.items, `${path}/items`, depth + 1, problems, totals);
  }
  if ('anyOf' in node) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
      problems.push(`${path}: anyOf is not a non-empty array`);
    else
      for (const [index, branch] of node.anyOf.entries())
        walk(branch, `${path}/anyOf/${index}`, depth, problems, totals);
  }
}

function literals(
  node: SchemaObject,
  path: string,
  problems: string[],
  totals: { enumValues: number; stringLength: number },
): void {
  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : [];
  if ('enum' in node && !Array.isArray(node.enum)) problems.push(`${path}: enum is not an array`);
  if (Array.isArray(node.enum)) totals.enumValues += node.enum.length;
  let length = 0;
  for (const value of values) {
    if (typeof value === 'object' && value !== null)
      problems.push(`${path}: an enum or const value is an object or array`);
    length += String(value).length;
  }
  totals.stringLength += length;
  const limits = OPENAI_STRICT_LIMITS;
  if (values.length > limits.largeEnumThreshold && length > limits.largeEnumStringLength) {
    problems.push(
      `${path}: ${values.length} enum values of ${length} characters (at most ${limits.largeEnumStringLength})`,
    );
  }
}
