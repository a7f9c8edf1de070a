/**
 * The JSON Schema OpenAI (without strict mode), Anthropic and the AI SDK take: the tool's schema with
 * its local `$ref`s inlined and the root given `type: "object"` when it left it out. Unions with
 * null already are these providers' nullable form. A root that is not an object or is a union
 * throws NotPortableError.
 */
import { isSchemaObject, type JsonSchema, type SchemaObject } from './json-schema-node.js';

/** Why a schema cannot be a tool's parameters. */
export class NotPortableError extends Error {}

/** The portable form of an inlined input schema. Throws NotPortableError. */
export function toPortableSchema(schema: JsonSchema): SchemaObject {
  if (schema === true) return { type: 'object' };
  if (!isSchemaObject(schema)) throw new NotPortableError('the input schema accepts no value');
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not', 'enum', 'const']) {
    if (key in schema)
      throw new NotPortableError(`the input schema has ${key} at the top level, which providers refuse`);
  }
  if (schema.type !== undefined && schema.type !== 'object') {
    throw new NotPortableError(
      `the input schema's root type is ${JSON.stringify(schema.type)}, not "object"`,
    );
  }
  return { ...schema, type: 'object' };
}
