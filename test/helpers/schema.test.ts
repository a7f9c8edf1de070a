import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { schemaFiles, validateMessage } from './schema.js';

const examples = path.join(path.dirname(schemaFiles.modern), 'examples-2026-07-28');

function example(type: string, file: string): unknown {
  return JSON.parse(readFileSync(path.join(examples, type, file), 'utf8'));
}

const callTool = () =>
  example('CallToolRequest', 'call-tool-request.json') as { params: Record<string, unknown> };

describe('validateMessage', () => {
  const chosen: Array<[type: string, file: string]> = [
    ['CallToolRequest', 'call-tool-request.json'],
    ['DiscoverRequest', 'server-discover-request.json'],
    ['CallToolResultResponse', 'call-tool-result-response.json'],
    ['CancelledNotification', 'user-requested-cancellation.json'],
    ['UnsupportedProtocolVersionError', 'unsupported-version.json'],
  ];
  for (const [type, file] of chosen) {
    test(`accepts the ${type} example as ${type} and as a JSONRPCMessage`, () => {
      const message = example(type, file);
      validateMessage(message, 'modern', type);
      validateMessage(message, 'modern');
    });
  }

  test('accepts every modern example against its folder type', () => {
    const folders = readdirSync(examples);
    assert.ok(folders.length > 50, `examples found in ${examples}`);
    let count = 0;
    for (const type of folders) {
      for (const file of readdirSync(path.join(examples, type))) {
        validateMessage(example(type, file), 'modern', type);
        count++;
      }
    }
    assert.ok(count >= folders.length);
  });

  test('rejects a modern CallToolRequest without _meta, naming it', () => {
    const message = callTool();
    delete message.params._meta;
    assert.throws(
      () => validateMessage(message, 'modern', 'CallToolRequest'),
      (error: unknown) => {
        assert.ok(error instanceof assert.AssertionError);
        assert.match(error.message, /^not a valid CallToolRequest \(modern MCP schema\)/);
        assert.match(error.message, /_meta/);
        assert.ok(Array.isArray(error.actual) && error.actual.length > 0, 'the Ajv errors are attached');
        return true;
      },
    );
    // The legacy era has no per-request _meta requirement.
    validateMessage(message, 'legacy', 'CallToolRequest');
  });

  test('rejects a modern request whose _meta lacks the protocol version', () => {
    const message = callTool();
    delete (message.params._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'];
    assert.throws(() => validateMessage(message, 'modern', 'CallToolRequest'), /protocolVersion/);
  });

  test('rejects what is not a JSON-RPC message, in both eras', () => {
    // (A request with a null or fractional id still matches JSONRPCNotification, which allows any extra key.)
    const invalid: unknown[] = [
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, error: { code: '-32600', message: 'x' } },
      { jsonrpc: '2.0', id: 1, error: { code: -32600 } },
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      'ping',
    ];
    for (const era of ['modern', 'legacy'] as const) {
      validateMessage({ jsonrpc: '2.0', id: 1, method: 'ping' }, era);
      for (const message of invalid) {
        assert.throws(() => validateMessage(message, era), assert.AssertionError, JSON.stringify(message));
      }
    }
  });

  test('legacy types exist only in the legacy schema', () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    validateMessage(initialize, 'legacy', 'InitializeRequest');
    assert.throws(
      () => validateMessage(initialize, 'modern', 'InitializeRequest'),
      /has no type InitializeRequest/,
    );
  });

  test('a missing schema file is reported with the path it looked at', () => {
    const original = schemaFiles.legacy;
    schemaFiles.legacy = path.join(path.dirname(original), 'no-such-schema.json');
    try {
      assert.throws(
        () => validateMessage({ jsonrpc: '2.0', method: 'x' }, 'legacy'),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.ok(error.message.includes(schemaFiles.legacy), error.message);
          assert.match(error.message, /legacy MCP schema is missing/);
          return true;
        },
      );
    } finally {
      schemaFiles.legacy = original;
    }
  });
});
