// The schema rewrites one by one: what each keeps, moves into the description, or refuses, and the
// checkers refusing what each provider's documentation refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '../../src/index.js';
import {
  checkGemini,
  checkJsonSchemaObject,
  checkOpenAIStrict,
  convertTool,
  restoreArguments,
} from '../../src/llm/index.js';
import { inlineRefs, MAX_INLINED_NODES } from '../../src/llm/schema/inline-refs.js';

const tool = (inputSchema: Record<string, unknown>, name = 't'): Tool => ({
  name,
  inputSchema: inputSchema as Tool['inputSchema'],
});

test('local $refs are inlined ($defs, definitions, JSON Pointer escapes); $defs are dropped', () => {
  const result = inlineRefs({
    type: 'object',
    properties: { a: { $ref: '#/$defs/A', description: 'the a' }, b: { $ref: '#/definitions/b~1c' } },
    $defs: { A: { type: 'string' } },
    definitions: { 'b/c': { type: 'integer' } },
  });
  assert.deepEqual(result, {
    schema: {
      type: 'object',
      properties: { a: { type: 'string', description: 'the a' }, b: { type: 'integer' } },
    },
  });
  const constrained = inlineRefs({
    properties: { a: { $ref: '#/$defs/A', maxLength: 3 } },
    $defs: { A: { type: 'string' } },
  });
  assert.deepEqual(constrained, {
    schema: { properties: { a: { allOf: [{ type: 'string' }, { maxLength: 3 }] } } },
  });
});

test('cycles, outside references, anchors and explosive sharing are refused with the reason', () => {
  const cycle = inlineRefs({
    properties: { node: { $ref: '#/$defs/Node' } },
    $defs: { Node: { properties: { next: { $ref: '#/$defs/Node' } } } },
  });
  assert.match('error' in cycle ? cycle.error : '', /"#\/\$defs\/Node" is recursive/);
  const outside = inlineRefs({ properties: { a: { $ref: 'https://example.com/a.json' } } });
  assert.match('error' in outside ? outside.error : '', /points outside the schema \(never fetched\)/);
  const anchor = inlineRefs({ properties: { a: { $ref: '#thing' } } });
  assert.match('error' in anchor ? anchor.error : '', /names an anchor/);
  const defs: Record<string, unknown> = { D0: { type: 'string' } };
  for (let level = 1; level <= 20; level++)
    defs[`D${level}`] = { anyOf: [{ $ref: `#/$defs/D${level - 1}` }, { $ref: `#/$defs/D${level - 1}` }] };
  const wide = inlineRefs({ properties: { a: { $ref: '#/$defs/D20' } }, $defs: defs });
  assert.match('error' in wide ? wide.error : '', new RegExp(`grows past ${MAX_INLINED_NODES} nodes`));
  const left = convertTool(
    'gemini',
    tool({
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: { Node: { properties: { next: { $ref: '#/$defs/Node' } } } },
    }),
  );
  assert.match('error' in left ? left.error : '', /recursive/);
});

test('OpenAI strict: closed objects, every property required, optionals nullable, refused keywords kept in the description', () => {
  const converted = convertTool(
    'openai',
    tool({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, format: 'hostname' },
        site: { type: 'string', format: 'uri', description: 'where' },
        tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true },
        limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      },
      required: ['name'],
    }),
  );
  assert.ok(!('error' in converted) && converted.strict);
  assert.deepEqual(converted.parameters, {
    type: 'object',
    properties: {
      name: { type: 'string', format: 'hostname', description: 'minLength: 2' },
      site: { type: ['string', 'null'], description: 'where (format: uri)' },
      tags: {
        type: ['array', 'null'],
        items: { type: 'string', enum: ['a', 'b'] },
        description: 'uniqueItems: true',
      },
      limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    },
    required: ['name', 'site', 'tags', 'limit'],
    additionalProperties: false,
  });
  assert.deepEqual(
    restoreArguments(
      { properties: { site: { type: 'string' }, limit: { type: ['integer', 'null'] } } },
      { site: null, limit: null },
    ),
    {
      limit: null,
    },
  );
});

test('OpenAI without strict where meaning would change: open maps, allOf, any-value properties', () => {
  for (const property of [
    { type: 'object', additionalProperties: { type: 'string' } },
    { allOf: [{ type: 'string' }, { maxLength: 3 }] },
    {},
  ]) {
    const converted = convertTool('openai', tool({ type: 'object', properties: { p: property } }));
    assert.ok(!('error' in converted), JSON.stringify(converted));
    assert.equal(converted.strict, false);
    assert.match(converted.note ?? '', /offered without strict mode: #\/properties\/p/);
  }
});

test('Gemini: upper-case types, nullable, string enums, refused keywords described, unrepresentable schemas left out', () => {
  const converted = convertTool(
    'gemini',
    tool({
      type: 'object',
      properties: {
        when: { type: ['string', 'null'], format: 'date-time' },
        level: { type: 'integer', enum: [1, 2, 3] },
        mode: { oneOf: [{ const: 'fast' }, { type: 'null' }] },
        host: { type: 'string', format: 'hostname', pattern: '^[a-z.]+$' },
        meta: { type: 'object', additionalProperties: { type: 'string' } },
        site: { description: 'Where', anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
      },
      required: ['level'],
      additionalProperties: false,
    }),
  );
  assert.ok(!('error' in converted));
  assert.deepEqual(converted.parameters, {
    type: 'OBJECT',
    properties: {
      when: { type: 'STRING', format: 'date-time', nullable: true },
      level: { type: 'INTEGER', description: 'one of: 1, 2, 3' },
      mode: {
        type: 'STRING',
        enum: ['fast'],
        format: 'enum',
        nullable: true,
        description: 'exactly one of these forms',
      },
      host: { type: 'STRING', pattern: '^[a-z.]+$', description: 'format: hostname' },
      meta: { type: 'OBJECT', description: 'other properties: {"type":"string"}' },
      site: { type: 'STRING', description: 'Where (format: uri)', nullable: true },
    },
    required: ['level'],
  });
  const noArguments = convertTool('gemini', tool({ type: 'object', properties: {} }));
  assert.deepEqual(noArguments, { parameters: undefined, strict: false });
  for (const [schema, reason] of [
    [{ properties: { a: { allOf: [{ type: 'string' }] } } }, /uses allOf, which Gemini has no form for/],
    [{ properties: { a: {} } }, /names no type; a Gemini Schema needs one/],
    [{ properties: { a: { enum: ['x', 1] } } }, /values of several kinds/],
    [{ properties: { a: { type: 'array', items: [{ type: 'string' }] } } }, /tuple/],
  ] as const) {
    const left = convertTool('gemini', tool(schema));
    assert.match('error' in left ? left.error : 'offered', reason);
  }
  assert.match(JSON.stringify(convertTool('gemini', tool({}, '1tool'))), /does not match/);
});

test('a root union of object shapes is merged: providers refuse top-level unions', () => {
  const converted = convertTool(
    'anthropic',
    tool({
      type: 'object',
      oneOf: [
        { properties: { id: { type: 'string' } }, required: ['id'] },
        { properties: { name: { type: 'string' } }, required: ['name'] },
      ],
    }),
  );
  assert.deepEqual(converted, {
    parameters: {
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string' } },
      description: 'send exactly one of these forms, by the properties each requires: {id} | {name}',
    },
    strict: false,
  });
  const unmergeable = convertTool('anthropic', tool({ anyOf: [{ type: 'string' }, { type: 'object' }] }));
  assert.match('error' in unmergeable ? unmergeable.error : '', /anyOf at the top level/);
});

test('the checkers refuse what each provider documents as refused', () => {
  assert.deepEqual(
    checkOpenAIStrict({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    }),
    [],
  );
  const strictProblems = checkOpenAIStrict({
    type: 'object',
    properties: {
      a: { type: 'string', minLength: 1 },
      b: { type: 'object', properties: {} },
      c: { type: 'array' },
    },
    required: ['a'],
  });
  for (const problem of [
    /#: additionalProperties is not false/,
    /property b is not required/,
    /keyword minLength/,
    /#\/properties\/c: an array without items/,
  ]) {
    assert.ok(
      strictProblems.some((each) => problem.test(each)),
      `${problem} in ${strictProblems.join('; ')}`,
    );
  }
  const many = Object.fromEntries(
    Array.from({ length: 1001 }, (_, index) => [`p${index}`, { enum: [index] }]),
  );
  assert.ok(
    checkOpenAIStrict({
      type: 'object',
      properties: many,
      required: Object.keys(many),
      additionalProperties: false,
    }).some((each) => /1001 enum values/.test(each)),
  );
  assert.deepEqual(checkGemini({ type: 'OBJECT', properties: { a: { type: 'STRING', enum: ['x'] } } }), []);
  const geminiProblems = checkGemini({
    type: 'OBJECT',
    properties: { a: { type: 'integer', additionalProperties: false, enum: [1] } },
    required: ['b'],
  });
  for (const problem of [
    /type "integer" is not a Type|type "integer"/,
    /field additionalProperties/,
    /enum must be a list of strings/,
    /required names something/,
  ]) {
    assert.ok(
      geminiProblems.some((each) => problem.test(each)),
      `${problem} in ${geminiProblems.join('; ')}`,
    );
  }
  assert.deepEqual(checkJsonSchemaObject({ type: 'object', properties: { a: { $ref: '#/$defs/A' } } }), [
    '#/properties/a: a $ref is left',
  ]);
  assert.deepEqual(checkJsonSchemaObject({ type: 'object', anyOf: [] }), ['#: anyOf at the top level']);
});
