// Checklist items of CLIENT-OBLIGATIONS §f that were done but not yet provoked by a test, each
// over the in-memory transport (docs/OBLIGATIONS.md names the test of every item).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { McpError, ProtocolError, UnsupportedProtocolVersionError } from '../../src/errors.js';
import { memoryServers, RpcError } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

const FAST_RESTART = { initialDelay: 1, maxDelay: 1, jitter: 0 };

describe('era detection', () => {
  test('item 3: -32021 to the probe is a modern error: it reaches the caller, initialize is never sent', async () => {
    const { spec, servers } = memoryServers({
      era: 'legacy',
      handlers: {
        'server/discover': () => {
          throw new RpcError(-32021, 'missing capability', { requiredCapabilities: { roots: {} } });
        },
      },
    });
    await using client = new Client({ name: 'obl', transport: spec, reconnect: { maxReconnects: 0 } });
    await assert.rejects(
      client.connect(),
      (error: unknown) => error instanceof McpError && error.code === -32021,
    );
    assert.equal(servers[0]!.requests('initialize').length, 0);
  });

  test("item 6: protocol 'modern' against a legacy server: an error naming the fix, no initialize", async () => {
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({
      name: 'obl',
      transport: spec,
      protocol: 'modern',
      reconnect: { maxReconnects: 0 },
    });
    await assert.rejects(
      client.connect(),
      (error: unknown) =>
        error instanceof UnsupportedProtocolVersionError &&
        /speaks only the legacy era/.test(error.message) &&
        /-32601/.test(error.message) &&
        /use protocol: 'auto' or 'legacy'/.test(error.message),
    );
    assert.equal(servers[0]!.requests('server/discover').length, 1);
    assert.equal(servers[0]!.requests('initialize').length, 0);
  });

  test('item 8: the era is cached for the process and reused after a restart (no second probe)', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: { 'tools/list': () => ({ tools: [] }) },
    });
    await using client = new Client({ name: 'obl', transport: spec, reconnect: FAST_RESTART });
    await client.connect();
    await client.listTools();
    await client.listTools();
    assert.equal(servers[0]!.requests('server/discover').length, 1, 'one probe per process');
    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    servers[0]!.peer.close({ type: 'exit_status', status: 1, signal: null });
    await ready;
    await client.listTools();
    assert.equal(client.era, 'modern');
    assert.equal(servers[1]!.requests('initialize').length, 0);
  });
});

describe('the request envelope', () => {
  test('item 15: odd values at reserved _meta keys of a result change nothing', async () => {
    const { spec } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': () => ({
          content: [{ type: 'text', text: 'ok' }],
          _meta: { 'io.modelcontextprotocol/related-task': 42, 'io.modelcontextprotocol/anything': [null] },
        }),
      },
    });
    await using client = new Client({ name: 'obl', transport: spec });
    await client.connect();
    const result = await client.callTool({ name: 'x' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'ok' }]);
    assert.deepEqual(result._meta, {
      'io.modelcontextprotocol/related-task': 42,
      'io.modelcontextprotocol/anything': [null],
    });
  });

  test('item 15: every _meta key the client writes is a spec key or the caller’s own', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: { 'tools/call': () => ({ content: [] }) },
    });
    await using client = new Client({ name: 'obl', transport: spec, logLevel: 'info' });
    await client.connect();
    await client.callTool({ name: 'x', _meta: { 'example.com/trace': 'a' } } as never);
    const meta = servers[0]!.requests('tools/call')[0]!.params!._meta as Record<string, unknown>;
    const ours = Object.keys(meta).filter((key) => key !== 'example.com/trace');
    for (const key of ours)
      assert.match(
        key,
        /^io\.modelcontextprotocol\/(protocolVersion|clientCapabilities|clientInfo|logLevel)$/,
      );
    assert.equal(meta['example.com/trace'], 'a');
  });

  test('item 17: two servers differing only in serverInfo get the same requests', async () => {
    const sent: unknown[][] = [];
    for (const name of ['claude-official', 'unknown-server']) {
      const { spec, servers } = memoryServers({
        era: 'legacy',
        handlers: {
          initialize: () => ({
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name, version: '9.9.9' },
          }),
          'tools/list': () => ({ tools: [] }),
        },
      });
      await using client = new Client({ name: 'obl', transport: spec });
      await client.connect();
      assert.equal(client.serverInfo?.name, name);
      await client.listTools();
      sent.push(
        servers[0]!.peer.received.map((message) => ('method' in message ? message.method : 'response')),
      );
    }
    assert.deepEqual(sent[0], sent[1]);
  });
});

describe('modern results and MRTR', () => {
  test('item 19: a result without resultType is complete', async () => {
    const { spec } = memoryServers({ era: 'modern', handlers: { 'tools/call': () => ({ content: [] }) } });
    await using client = new Client({ name: 'obl', transport: spec });
    await client.connect();
    assert.deepEqual(await client.callTool({ name: 'x' }), { content: [] });
  });

  test('item 20: an unknown resultType is a ProtocolError naming it', async () => {
    const { spec } = memoryServers({
      era: 'modern',
      handlers: { 'tools/call': () => ({ resultType: 'partial', content: [] }) },
    });
    await using client = new Client({ name: 'obl', transport: spec });
    await client.connect();
    await assert.rejects(
      client.callTool({ name: 'x' }),
      (error: unknown) =>
        error instanceof ProtocolError && /invalid resultType "partial"/.test(error.message),
    );
  });

  test('item 22: no requestState is invented when none was given', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': (params) =>
          params.inputResponses === undefined
            ? { resultType: 'input_required', inputRequests: { r: { method: 'roots/list' } } }
            : { content: [] },
      },
    });
    await using client = new Client({
      name: 'obl',
      transport: spec,
      handlers: { roots: async () => ({ roots: [] }) },
    });
    await client.connect();
    await client.callTool({ name: 'x' });
    const retry = servers[0]!.requests('tools/call')[1]!.params!;
    assert.equal(Object.hasOwn(retry, 'requestState'), false);
    assert.deepEqual(retry.inputResponses, { r: { roots: [] } });
  });

  test('item 22: a requestState of any shape is echoed byte for byte', async () => {
    const state = '{"a":1}\u0000 \u00e9 '.repeat(3);
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'prompts/get': (params) =>
          params.requestState === undefined
            ? { resultType: 'input_required', requestState: state }
            : { messages: [] },
      },
      capabilities: { prompts: {} },
    });
    await using client = new Client({ name: 'obl', transport: spec });
    await client.connect();
    await client.getPrompt({ name: 'p' });
    const [first, retry] = servers[0]!.requests('prompts/get');
    assert.equal(retry!.params!.requestState, state);
    assert.equal(Object.hasOwn(retry!.params!, 'inputResponses'), false, 'no inputRequests: retried at once');
    assert.notEqual(first!.id, retry!.id);
  });

  test('item 24: the answers and state of one call never go with the next request', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': (params) =>
          params.inputResponses === undefined
            ? {
                resultType: 'input_required',
                inputRequests: { r: { method: 'roots/list' } },
                requestState: 's',
              }
            : { content: [] },
        'tools/list': () => ({ tools: [] }),
      },
    });
    await using client = new Client({
      name: 'obl',
      transport: spec,
      handlers: { roots: async () => ({ roots: [] }) },
    });
    await client.connect();
    await client.callTool({ name: 'x' });
    await client.listTools();
    await client.callTool({ name: 'x' });
    const list = servers[0]!.requests('tools/list')[0]!.params!;
    assert.equal(Object.hasOwn(list, 'requestState'), false);
    assert.equal(Object.hasOwn(list, 'inputResponses'), false);
    const third = servers[0]!.requests('tools/call')[2]!.params!;
    assert.equal(Object.hasOwn(third, 'requestState'), false, 'a new call starts without the old state');
    assert.equal(Object.hasOwn(third, 'inputResponses'), false);
  });
});

describe('modern caching', () => {
  for (const [label, hints] of [
    ['absent', {}],
    ['negative', { ttlMs: -1000 }],
  ] as const) {
    test(`item 32: ${label} ttlMs is stale at once: the next access asks again`, async () => {
      const { spec, servers } = memoryServers({
        era: 'modern',
        handlers: { 'tools/list': () => ({ tools: [], ...hints }) },
      });
      await using client = new Client({ name: 'obl', transport: spec });
      await client.connect();
      await client.listTools();
      await client.listTools();
      assert.equal(servers[0]!.requests('tools/list').length, 2);
    });
  }

  test('item 34: a private result is not shared with another client (another authorization context)', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: { 'tools/list': () => ({ tools: [], ttlMs: 60_000, cacheScope: 'private' }) },
    });
    await using first = new Client({ name: 'a', transport: spec });
    await using second = new Client({ name: 'b', transport: spec });
    await first.connect();
    await second.connect();
    await first.listTools();
    await first.listTools();
    await second.listTools();
    assert.equal(servers[0]!.requests('tools/list').length, 1, 'the first client reused its own entry');
    assert.equal(servers[1]!.requests('tools/list').length, 1, 'the second asked its own server');
  });
});

describe('legacy pagination and errors', () => {
  test('item 63: cursors do not outlive the session: after a restart the list starts without one', async () => {
    const { spec, servers } = memoryServers({
      era: 'legacy',
      handlers: {
        'tools/list': (params) =>
          params.cursor === undefined
            ? { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'page-2' }
            : { tools: [{ name: 'b', inputSchema: { type: 'object' } }] },
      },
    });
    await using client = new Client({ name: 'obl', transport: spec, reconnect: FAST_RESTART });
    await client.connect();
    const page = await client.listTools({});
    assert.deepEqual(
      page.tools.map((tool) => tool.name),
      ['a', 'b'],
    );
    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    servers[0]!.peer.close({ type: 'exit_status', status: 1, signal: null });
    await ready;
    await client.listTools();
    assert.equal(servers[1]!.requests('tools/list')[0]!.params?.cursor, undefined);
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`item 77 (${era}): -32002 reaches the caller as McpError with its code and data`, async () => {
      const { spec } = memoryServers({
        era,
        capabilities: { resources: {} },
        handlers: {
          'resources/read': (params) => {
            throw new RpcError(-32002, 'Resource not found', { uri: params.uri });
          },
        },
      });
      await using client = new Client({ name: 'obl', transport: spec });
      await client.connect();
      await assert.rejects(
        client.readResource({ uri: 'file:///missing' }),
        (error: unknown) =>
          error instanceof McpError &&
          error.code === -32002 &&
          (error.data as { uri: string }).uri === 'file:///missing',
      );
    });
  }

  test('item 77: a -32000…-32019 code is passed on as it is, with no meaning read into it', async () => {
    const { spec } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': () => {
          throw new RpcError(-32010, 'implementation specific');
        },
      },
    });
    await using client = new Client({ name: 'obl', transport: spec });
    await client.connect();
    await assert.rejects(
      client.callTool({ name: 'x' }),
      (error: unknown) =>
        error instanceof McpError &&
        error.code === -32010 &&
        !(error instanceof UnsupportedProtocolVersionError),
    );
    assert.equal(client.state, 'ready', 'the connection is kept');
  });
});

describe('sampling', () => {
  test('item 49: each sampling request reaches the handler with its own messages only', async () => {
    const seen: unknown[] = [];
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({
      name: 'obl',
      transport: spec,
      handlers: {
        sampling: async (params) => {
          seen.push(params.messages);
          return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };
        },
      },
    });
    await client.connect();
    const server = servers[0]!;
    for (const [id, text] of [
      [1, 'first'],
      [2, 'second'],
    ] as const) {
      server.peer.send({
        jsonrpc: '2.0',
        id,
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 10 },
      });
    }
    await waitFor(
      () => server.peer.received.filter((message) => 'result' in message).length === 2,
      'both sampling answers',
    );
    assert.deepEqual(seen, [
      [{ role: 'user', content: { type: 'text', text: 'first' } }],
      [{ role: 'user', content: { type: 'text', text: 'second' } }],
    ]);
  });
});
