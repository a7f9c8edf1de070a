/**
 * What OpenAI (function `parameters` without strict mode) and Anthropic (`input_schema`) take: a
 * JSON Schema object whose root is `type: "object"`, not a union. OpenAI:
 * https://platform.openai.com/docs/guides/function-calling#defining-functions ("parameters: JSON schema
 * defining the function's input arguments", an object schema); Anthropic:
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools
 * ("input_schema: a JSON Schema object defining the expected parameters"; the API refuses oneOf,
 * allOf and anyOf at the top level). Our own rule on top: no `$ref` is left (every output is inlined).
 */
import { isSchemaObject } from '../schema/json-schema-node.js';

/** Every way `schema` breaks an object-rooted, reference-free JSON Schema, as `#/path: problem`. */
export function checkJsonSchemaObject(schema: unknown): string[] {
  if (!isSchemaObject(schema)) return ['#: the schema is not an object'];
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push('#: the root type is not "object"');
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not', 'enum', 'const']) {
    if (key in schema) problems.push(`#: ${key} at the top level`);
  }
  if ('properties' in schema && !isSchemaObject(schema.properties))
    problems.push('#: properties is not an object');
  if (
    'required' in schema &&
    !(Array.isArray(schema.required) && schema.required.every((name) => typeof name === 'string'))
  ) {
    problems.push('#: required is not a list of names');
  }
  findRefs(schema, '#', problems);
  return problems;
}

function findRefs(node: unknown, path: string, problems: string[]): void {
  if (Array.isArray(node))
    for (const [index, item] of node.entries()) findRefs(item, `${path}/${index}`, problems);
  if (!isSchemaObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    if (key === '$ref') problems.push(`${path}: a $ref is left`);
    else findRefs(value, `${path}/${key}`, problems);
  }
}
