/**
 * The `Schema` object Gemini function declarations take as `parameters`, written from
 * https://ai.google.dev/api/caching#Schema (function calling: https://ai.google.dev/gemini-api/docs/function-calling):
 * a select subset of OpenAPI 3.0 with the fields type (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY,
 * OBJECT, NULL), format, title, description, nullable, enum (for STRING), maxItems, minItems,
 * properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf,
 * propertyOrdering, default, items, minimum and maximum; formats are "enum" and "date-time" for
 * STRING, "float" and "double" for NUMBER, "int32" and "int64" for INTEGER. No `$ref`, `$defs`,
 * `additionalProperties`, `allOf`, `oneOf` or `const`.
 */

import { GEMINI_FORMATS } from '../schema/gemini.js';
import { isSchemaObject } from '../schema/json-schema-node.js';

const FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);
const COUNTS = [
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
];

/** Every way `parameters` breaks Gemini's Schema object, as `#/path: problem`; empty when it conforms. */
export function checkGemini(parameters: unknown): string[] {
  const problems: string[] = [];
  if (parameters === undefined) return problems;
  if (!isSchemaObject(parameters) || parameters.type !== 'OBJECT')
    return ['#: parameters are not an OBJECT schema'];
  walk(parameters, '#', problems);
  return problems;
}

function walk(node: unknown, path: string, problems: string[]): void {
  if (!isSchemaObject(node)) {
    problems.push(`${path}: not a Schema object`);
    return;
  }
  for (const key of Object.keys(node))
    if (!FIELDS.has(key)) problems.push(`${path}: field ${key} is not part of Schema`);
  const type = node.type;
  if (type === undefined && !Array.isArray(node.anyOf)) problems.push(`${path}: neither type nor anyOf`);
  if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type)))
    problems.push(`${path}: type ${JSON.stringify(type)} is not a Type`);
  if (
    'format' in node &&
    !(typeof type === 'string' && GEMINI_FORMATS[type]?.includes(node.format as string))
  ) {
    problems.push(`${path}: format ${JSON.stringify(node.format)} is not supported for ${String(type)}`);
  }
  if (
    'enum' in node &&
    (type !== 'STRING' || !Array.isArray(node.enum) || !node.enum.every((value) => typeof value === 'string'))
  ) {
    problems.push(`${path}: enum must be a list of strings on a STRING`);
  }
  if ('nullable' in node && typeof node.nullable !== 'boolean')
    problems.push(`${path}: nullable is not a boolean`);
  for (const key of ['title', 'description', 'pattern']) {
    if (key in node && typeof node[key] !== 'string') problems.push(`${path}: ${key} is not a string`);
  }
  for (const key of COUNTS)
    if (key in node && typeof node[key] !== 'number') problems.push(`${path}: ${key} is not a number`);
  if ('properties' in node) {
    if (type !== 'OBJECT' || !isSchemaObject(node.properties))
      problems.push(`${path}: properties outside an OBJECT`);
    else
      for (const [name, child] of Object.entries(node.properties))
        walk(child, `${path}/properties/${name}`, problems);
  }
  if ('required' in node) {
    const names = isSchemaObject(node.properties) ? Object.keys(node.properties) : [];
    if (!Array.isArray(node.required) || !node.required.every((name) => names.includes(name))) {
      problems.push(`${path}: required names something that is not a property`);
    }
  }
  if ('items' in node) {
    if (type !== 'ARRAY') problems.push(`${path}: items outside an ARRAY`);
    walk(node.items, `${path}/items`, problems);
  }
  if ('anyOf' in node) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
      problems.push(`${path}: anyOf is not a non-empty list`);
    else for (const [index, branch] of node.anyOf.entries()) walk(branch, `${path}/anyOf/${index}`, problems);
  }
}
