// Schemas servers send (§f items 79-82, 84): structuredContent checked against outputSchema,
// each schema compiled once, the validator pluggable, no $ref ever fetched, schemas unchanged.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { Client, ConfigError, ProtocolError } from '../../src/index.js';
import { compiledSchemaCount, defaultSchemaValidator } from '../../src/protocol/schema-validation.js';
import { memoryServers } from '../helpers/memory-server.js';

const OUTPUT = {
  type: 'object',
  properties: { temperature: { type: 'number' }, unit: { enum: ['C', 'F'] } },
  required: ['temperature'],
};

function weatherServer(structuredContent: unknown, extra: Record<string, unknown> = {}) {
  const outputSchema = structuredClone(OUTPUT);
  const result = memoryServers({
    era: 'modern',
    handlers: {
      'tools/list': () => ({ tools: [{ name: 'weather', inputSchema: { type: 'object' }, outputSchema }] }),
      'tools/call': () => ({ content: [{ type: 'text', text: '{}' }], structuredContent, ...extra }),
    },
  });
  return result;
}

describe('structuredContent and outputSchema', () => {
  test('item 81: a matching structuredContent passes; the listed schema is left as the server sent it', async () => {
    const { spec } = weatherServer({ temperature: 21.5, unit: 'C' });
    await using client = new Client({ name: 'schemas', transport: spec });
    await client.connect();
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'weather' });
    assert.deepEqual(result.structuredContent, { temperature: 21.5, unit: 'C' });
    assert.deepEqual(tools[0]!.outputSchema, OUTPUT);
  });

  test('item 81: a non-matching structuredContent is a ProtocolError naming the field', async () => {
    const { spec } = weatherServer({ temperature: 'warm', unit: 'K' });
    await using client = new Client({ name: 'schemas', transport: spec });
    await client.connect();
    await client.listTools();
    await assert.rejects(
      client.callTool({ name: 'weather' }),
      (error: unknown) =>
        error instanceof ProtocolError &&
        /structuredContent of tool weather does not match its outputSchema/.test(error.message) &&
        /#\/temperature/.test(error.message) &&
        /#\/unit/.test(error.message),
    );
  });

  test('item 81: a missing structuredContent fails; an isError result is passed on unchecked', async () => {
    const { spec } = weatherServer(undefined);
    await using client = new Client({ name: 'schemas', transport: spec });
    await client.connect();
    await client.listTools();
    await assert.rejects(client.callTool({ name: 'weather' }), /returned no structuredContent/);
    const failed = weatherServer({ wrong: true }, { isError: true });
    await using other = new Client({ name: 'schemas', transport: failed.spec });
    await other.connect();
    await other.listTools();
    assert.equal((await other.callTool({ name: 'weather' })).isError, true);
  });

  test('a legacy server is checked the same way', async () => {
    const { spec } = memoryServers({
      era: 'legacy',
      handlers: {
        'tools/list': () => ({
          tools: [{ name: 'w', inputSchema: { type: 'object' }, outputSchema: OUTPUT }],
        }),
        'tools/call': () => ({ content: [], structuredContent: {} }),
      },
    });
    await using client = new Client({ name: 'schemas', transport: spec });
    await client.connect();
    await client.listTools();
    await assert.rejects(client.callTool({ name: 'w' }), /#: .*temperature|required/);
  });

  test('item 82: a validator of one’s own replaces the default (validateSchema)', async () => {
    const { spec } = weatherServer({ temperature: 'anything' });
    const seen: unknown[] = [];
    await using client = new Client({
      name: 'schemas',
      transport: spec,
      validateSchema: (schema, value) => {
        seen.push([schema, value]);
        return { valid: true };
      },
    });
    await client.connect();
    await client.listTools();
    await client.callTool({ name: 'weather' });
    assert.deepEqual(seen, [[OUTPUT, { temperature: 'anything' }]]);
    assert.throws(
      () => new Client({ name: 'x', transport: spec, validateSchema: 'ajv' as never }),
      (error: unknown) => error instanceof ConfigError && error.key === 'validateSchema',
    );
  });
});

describe('the default validator', () => {
  test('item 84: each schema is compiled once, however many times it arrives', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 7 } } };
    const before = compiledSchemaCount();
    for (let i = 0; i < 50; i++) {
      // A new object each time, as every request parses its own.
      const check = await defaultSchemaValidator(structuredClone(schema), { n: i });
      assert.equal(check.valid, i >= 7);
    }
    assert.equal(compiledSchemaCount() - before, 1);
  });

  test('item 80: a network $ref is never fetched: the schema is reported unusable', async () => {
    let fetched = 0;
    const server = createServer((_request, response) => {
      fetched++;
      response.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const check = await defaultSchemaValidator(
        { type: 'object', properties: { a: { $ref: `http://127.0.0.1:${port}/a.json` } } },
        { a: 1 },
      );
      assert.equal(check.valid, 'unknown');
      assert.match((check as { reason: string }).reason, /Unresolved \$ref/);
      assert.equal(fetched, 0);
    } finally {
      server.close();
    }
  });

  test('item 79: 2020-12 by default, named drafts honoured, an unknown dialect fails gracefully', async () => {
    // prefixItems exists only in 2020-12.
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }] };
    assert.equal((await defaultSchemaValidator(tuple, [1])).valid, false);
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
    };
    assert.equal((await defaultSchemaValidator(draft7, [1])).valid, false);
    const unknown = await defaultSchemaValidator(
      { $schema: 'https://example.com/my-dialect', type: 'string' },
      1,
    );
    assert.deepEqual(unknown, {
      valid: 'unknown',
      reason: 'unsupported JSON Schema dialect https://example.com/my-dialect',
    });
  });

  test('a local $ref and $defs are followed', async () => {
    const schema = {
      $defs: { n: { type: 'number' } },
      type: 'object',
      properties: { a: { $ref: '#/$defs/n' } },
    };
    assert.equal((await defaultSchemaValidator(schema, { a: 1 })).valid, true);
    assert.equal((await defaultSchemaValidator(schema, { a: 'x' })).valid, false);
  });
});
