// Test helpers of the property test: values a schema accepts (generated, then confirmed by the
// project's validator), the arguments a model sends under a rewritten schema, and a Gemini Schema
// read back as JSON Schema so the validator can check values against it.
import fc from 'fast-check';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const anyValue = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.integer({ min: -5, max: 5 }),
  fc.boolean(),
  fc.constant(null),
);

/** Values shaped by `schema` (an inlined schema): most are valid under it; the validator decides. */
export function valuesOf(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (!isNode(schema) || depth > 6) return anyValue;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const { [key]: _branches, ...rest } = schema;
      const merged = branches.map((branch) => (isNode(branch) ? { ...rest, ...branch } : branch));
      return key === 'allOf'
        ? valuesOf(
            merged.reduce((a, b) => ({ ...(a as Node), ...(b as Node) }), {}),
            depth + 1,
          )
        : fc.oneof(...merged.map((branch) => valuesOf(branch, depth + 1)));
    }
  }
  const types =
    typeof schema.type === 'string'
      ? [schema.type]
      : Array.isArray(schema.type)
        ? (schema.type as string[])
        : undefined;
  if (types === undefined) {
    if (isNode(schema.properties)) return valuesOf({ ...schema, type: 'object' }, depth);
    return anyValue;
  }
  return fc.oneof(...types.map((type) => typed(schema, type, depth)));
}

function typed(schema: Node, type: string, depth: number): fc.Arbitrary<unknown> {
  const number = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc
        .integer({ min: Math.ceil(number('minimum') ?? -1000), max: Math.floor(number('maximum') ?? 1000) })
        .map((value) => {
          const step = number('multipleOf');
          return step !== undefined && Number.isInteger(step) ? value - (value % step) : value;
        });
    case 'number':
      return fc.double({
        min: number('minimum') ?? -1000,
        max: number('maximum') ?? 1000,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return strings(schema);
    case 'array': {
      const maxLength = Math.min(number('maxItems') ?? 3, 3);
      return fc.array(valuesOf(schema.items, depth + 1), {
        minLength: Math.min(number('minItems') ?? 0, maxLength),
        maxLength,
      });
    }
    case 'object': {
      const properties = isNode(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) model[name] = valuesOf(property, depth + 1);
      for (const name of required) model[name] ??= anyValue;
      return fc.record(model, { requiredKeys: required.filter((name) => name in model) });
    }
    default:
      return anyValue;
  }
}

function strings(schema: Node): fc.Arbitrary<string> {
  const format = schema.format;
  if (format === 'date-time')
    return fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((date) => date.toISOString());
  if (format === 'date')
    return fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10));
  if (format === 'email') return fc.constantFrom('a@example.com', 'user.name@example.org');
  if (format === 'uri' || format === 'url') return fc.constantFrom('https://example.com/a', 'file:///tmp/x');
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      return fc.string();
    }
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(minLength, 12);
  return fc.string({ minLength, maxLength });
}

/**
 * The arguments a model sends under OpenAI's strict rewrite for the value `value`: every property
 * of a closed object present, the ones the value leaves out as null.
 */
export function asStrictArguments(strict: unknown, value: unknown): unknown {
  if (!isNode(strict)) return value;
  if (Array.isArray(value)) return value.map((item) => asStrictArguments(strict.items, item));
  if (!isNode(value)) return value;
  if (Array.isArray(strict.anyOf)) {
    const branch = strict.anyOf.find(
      (option) =>
        isNode(option) &&
        isNode(option.properties) &&
        Object.keys(value).every((key) => key in (option.properties as Node)),
    );
    return branch === undefined ? value : asStrictArguments(branch, value);
  }
  if (!isNode(strict.properties)) return value;
  const filled: Node = {};
  for (const [name, property] of Object.entries(strict.properties)) {
    filled[name] = name in value ? asStrictArguments(property, value[name]) : null;
  }
  return filled;
}

/** A Gemini Schema read back as the JSON Schema it stands for (upper-case types, nullable). */
export function geminiAsJsonSchema(node: unknown): unknown {
  if (!isNode(node)) return node;
  const out: Node = {};
  const type = typeof node.type === 'string' ? node.type.toLowerCase() : undefined;
  if (type !== undefined) out.type = node.nullable === true ? [type, 'null'] : type;
  if (Array.isArray(node.enum)) out.enum = node.nullable === true ? [...node.enum, null] : node.enum;
  if (Array.isArray(node.anyOf)) {
    out.anyOf = node.anyOf.map(geminiAsJsonSchema);
    if (node.nullable === true) (out.anyOf as unknown[]).push({ type: 'null' });
  }
  if (isNode(node.properties))
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, child]) => [name, geminiAsJsonSchema(child)]),
    );
  if (node.items !== undefined) out.items = geminiAsJsonSchema(node.items);
  for (const key of [
    'required',
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
    'minProperties',
    'maxProperties',
    'pattern',
  ]) {
    if (key in node) out[key] = node[key];
  }
  if (node.format === 'date-time') out.format = 'date-time';
  return out;
}

/** JSON Schemas in the shapes MCP servers send: nesting, unions with null, shared definitions, constraints. */
export const generatedInputSchemas: fc.Arbitrary<Node> = (() => {
  const leaf = fc.constantFrom<Node>(
    { type: 'string' },
    { type: 'string', pattern: '^[a-z]{1,5}$' },
    { type: 'string', format: 'email' },
    { type: 'string', format: 'date-time' },
    { type: 'string', format: 'uri' },
    { type: 'string', minLength: 1, maxLength: 8 },
    { type: 'integer', minimum: 0, maximum: 100 },
    { type: 'integer', multipleOf: 5 },
    { type: 'number', exclusiveMinimum: 0 },
    { type: 'boolean' },
    { enum: ['a', 'b', 'c'] },
    { type: 'integer', enum: [1, 2, 3] },
    { const: 'fixed' },
    { type: ['string', 'null'] },
    { type: 'array', items: { type: 'string' }, uniqueItems: true },
    { $ref: '#/$defs/Shared' },
    { type: 'string', default: 'x', description: 'with a default' },
  );
  const { node } = fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc
        .record({
          type: fc.constant('object'),
          properties: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 }),
          closed: fc.boolean(),
          some: fc.boolean(),
        })
        .map(object),
      tie('node').map((items) => ({ type: 'array', items, maxItems: 4 })),
      tie('node').map((inner) => ({ anyOf: [inner, { type: 'null' }] })),
      fc.tuple(leaf, leaf).map(([a, b]) => ({ anyOf: [a, b] })),
      fc.tuple(leaf, leaf).map(([a, b]) => ({ oneOf: [a, b], description: 'one of two' })),
    ),
  }));
  const shared = fc.constantFrom<Node>(
    { type: 'string', maxLength: 4 },
    { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  );
  return fc
    .record({
      properties: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), node, { maxKeys: 5 }),
      closed: fc.boolean(),
      some: fc.boolean(),
      shared,
    })
    .map(({ shared: definition, ...rest }) => ({
      ...object({ type: 'object', ...rest }),
      $defs: { Shared: definition },
    }));
})();

function object({
  properties,
  closed,
  some,
}: {
  type: string;
  properties: Node;
  closed: boolean;
  some: boolean;
}): Node {
  const names = Object.keys(properties);
  const result: Node = { type: 'object', properties };
  if (some && names.length > 0) result.required = names.filter((_, index) => index % 2 === 0);
  if (closed) result.additionalProperties = false;
  return result;
}
