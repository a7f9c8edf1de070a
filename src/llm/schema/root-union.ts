/**
 * A root `anyOf`/`oneOf` of object shapes (`{ oneOf: [{ required: ['id'] }, { required: ['name'] }] }`)
 * as one object: providers refuse a union at the top of a tool's parameters. The merged object
 * declares every branch's properties and requires only what all of them require, so every value the
 * union accepts is still accepted; the choice between the forms is kept in the description, and
 * executeToolCall checks the arguments against the original union before the call.
 */
import { isDeepStrictEqual } from 'node:util';
import { isSchemaObject, type JsonSchema, type SchemaObject, withNote } from './json-schema-node.js';

/** Keywords a branch may carry to count as an object shape. */
const SHAPE = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', 'title']);

/** `schema` with a root union of object shapes merged into one object; unchanged when it has none. */
export function flattenRootUnion(schema: JsonSchema): JsonSchema {
  if (!isSchemaObject(schema)) return schema;
  const key = Array.isArray(schema.oneOf) ? 'oneOf' : Array.isArray(schema.anyOf) ? 'anyOf' : undefined;
  if (key === undefined || (schema.oneOf !== undefined && schema.anyOf !== undefined)) return schema;
  const branches = schema[key] as unknown[];
  if (branches.length === 0 || !branches.every(isObjectShape)) return schema;
  const shapes = branches as SchemaObject[];
  const properties: SchemaObject = { ...(isSchemaObject(schema.properties) ? schema.properties : {}) };
  for (const shape of shapes) {
    for (const [name, property] of Object.entries(isSchemaObject(shape.properties) ? shape.properties : {})) {
      if (name in properties && !isDeepStrictEqual(properties[name], property)) return schema;
      properties[name] = property;
    }
  }
  const requiredOf = (node: SchemaObject) =>
    Array.isArray(node.required) ? (node.required as string[]) : [];
  const everywhere = requiredOf(shapes[0]!).filter((name) =>
    shapes.every((shape) => requiredOf(shape).includes(name)),
  );
  const required = [...new Set([...requiredOf(schema), ...everywhere])];
  const closed =
    schema.additionalProperties === false || shapes.every((shape) => shape.additionalProperties === false);
  const forms = shapes.map((shape) => {
    const needs = requiredOf(shape);
    return needs.length > 0 ? `{${needs.join(', ')}}` : '{}';
  });
  const { [key]: _union, ...rest } = schema;
  const merged: SchemaObject = { ...rest, type: 'object', properties };
  if (required.length > 0) merged.required = required;
  else delete merged.required;
  if (closed) merged.additionalProperties = false;
  const choice = key === 'oneOf' ? 'exactly one of these forms' : 'at least one of these forms';
  return withNote(merged, `send ${choice}, by the properties each requires: ${forms.join(' | ')}`);
}

function isObjectShape(branch: unknown): boolean {
  if (!isSchemaObject(branch)) return false;
  if (branch.type !== undefined && branch.type !== 'object') return false;
  if (branch.additionalProperties !== undefined && typeof branch.additionalProperties !== 'boolean')
    return false;
  return Object.keys(branch).every((key) => SHAPE.has(key));
}
