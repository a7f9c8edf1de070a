/** The JSON Schema node shapes the llm rewrites walk, and small helpers over them. */

/** A schema object: keywords to values (anything a server sent). */
export type SchemaObject = { [keyword: string]: unknown };

/** A JSON Schema: an object, or `true`/`false`. */
export type JsonSchema = SchemaObject | boolean;

/** Whether `value` is a schema object (a plain object, not an array or null). */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON types a node names with `type` (a string or an array), or undefined when it names none. */
export function typesOf(node: SchemaObject): string[] | undefined {
  const type = node.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.every((item) => typeof item === 'string')) return type as string[];
  return undefined;
}

/** The JSON types a node names, else the one its keywords imply (object, array), else undefined. */
export function typesOrInferred(node: SchemaObject): string[] | undefined {
  const named = typesOf(node);
  if (named !== undefined) return named;
  if ('properties' in node || 'additionalProperties' in node || 'required' in node) return ['object'];
  return 'items' in node ? ['array'] : undefined;
}

/** Whether the schema accepts `null` for certain (a conservative reading: unknown shapes say false). */
export function admitsNull(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isSchemaObject(schema)) return false;
  if (Object.keys(schema).every((key) => key === 'description' || key === 'title')) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  const types = typesOf(schema);
  if (types) return types.includes('null');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((branch) => admitsNull(branch))) return true;
  }
  return false;
}

/** Appends a note to a node's description: what a rewrite removed, so the model still reads it. */
export function withNote(node: SchemaObject, note: string): SchemaObject {
  if (note === '') return node;
  const description = typeof node.description === 'string' && node.description !== '' ? node.description : '';
  return { ...node, description: description === '' ? note : `${description} (${note})` };
}

/** A keyword's value as short text for a description note: `pattern: ^a+$`. */
export function describeKeyword(keyword: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `${keyword}: ${text}`;
}
