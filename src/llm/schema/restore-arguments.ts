/**
 * The reverse of the strict rewrite, applied to the arguments a model sent before the call: an
 * optional property that strict mode made required-and-nullable comes back as `null` when the
 * model meant "left out", so a `null` for a property the original schema neither requires nor
 * lets be null is dropped again. Values the original accepts are never changed.
 */
import { admitsNull, isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema-node.js';

/** `value` with the nulls the model sent for omitted optional properties removed, by the inlined original schema. */
export function restoreArguments(schema: JsonSchema, value: unknown): unknown {
  if (!isSchemaObject(schema)) return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    return isSchemaObject(items) ? value.map((item) => restoreArguments(items, item)) : value;
  }
  if (!isSchemaObject(value)) return value;
  const shapes = objectShapes(schema);
  if (shapes.length === 0) return value;
  const restored: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const declared = shapes.filter((shape) => isSchemaObject(shape.properties) && name in shape.properties);
    const schemas = declared.map((shape) => (shape.properties as SchemaObject)[name]);
    const omittable =
      declared.length > 0 &&
      declared.every((shape) => !(Array.isArray(shape.required) && shape.required.includes(name))) &&
      !schemas.some((property) => admitsNull(property));
    if (item === null && omittable) continue;
    restored[name] = schemas.length === 1 ? restoreArguments(schemas[0] as JsonSchema, item) : item;
  }
  return restored;
}

/** The object schemas a value is checked against: the node and the branches of its unions. */
function objectShapes(schema: SchemaObject): SchemaObject[] {
  const shapes: SchemaObject[] = [];
  if (isSchemaObject(schema.properties)) shapes.push(schema);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      for (const branch of branches) if (isSchemaObject(branch)) shapes.push(...objectShapes(branch));
    }
  }
  return shapes;
}
