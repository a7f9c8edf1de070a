// The modern result cache, as a unit: ResultCache on an injected clock, then the Client's use of
// it over an in-memory transport (what is cached, what never is, what drops an entry).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cacheKey, freshFor, MAX_CACHE_ENTRIES, ResultCache } from '../../src/client/cache.js';
import { Client } from '../../src/client/client.js';
import { McpError } from '../../src/errors.js';
import { type MemoryServer, memoryServers, RpcError } from '../helpers/memory-server.js';
import { names } from '../helpers/wait.js';

describe('ResultCache', () => {
  test('a result is fresh for its ttlMs, then gone', () => {
    let now = 1000;
    const cache = new ResultCache(() => now);
    cache.set('tools/list', {}, { tools: [], ttlMs: 500 });
    now = 1499;
    assert.deepEqual(cache.get('tools/list', {}), { tools: [], ttlMs: 500 });
    now = 1500;
    assert.equal(cache.get('tools/list', {}), undefined);
    assert.equal(cache.size, 0, 'an expired entry is dropped when it is looked up');
  });

  test('absent, zero, negative, infinite or non-numeric ttlMs is never cached', () => {
    const cache = new ResultCache(() => 0);
    for (const ttlMs of [undefined, 0, -5, Number.POSITIVE_INFINITY, Number.NaN, '1000', null]) {
      assert.equal(freshFor({ ttlMs }), 0, `ttlMs ${String(ttlMs)}`);
      cache.set('tools/list', {}, { tools: [], ttlMs });
    }
    assert.equal(freshFor(null), 0);
    assert.equal(cache.size, 0);
  });

  test('only the cacheable list and read methods are kept', () => {
    const cache = new ResultCache(() => 0);
    cache.set('tools/call', { name: 'x' }, { content: [], ttlMs: 1000 });
    cache.set('prompts/get', { name: 'x' }, { messages: [], ttlMs: 1000 });
    assert.equal(cache.size, 0);
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      cache.set(method, {}, { ttlMs: 1000 });
    }
    cache.set('resources/read', { uri: 'file:///a' }, { contents: [], ttlMs: 1000 });
    assert.equal(cache.size, 5);
  });

  test('the key is the method and every parameter but _meta', () => {
    assert.equal(cacheKey('tools/list', undefined), 'tools/list');
    assert.equal(
      cacheKey('tools/list', { cursor: 'a', _meta: { x: 1 } }),
      cacheKey('tools/list', { cursor: 'a' }),
    );
    assert.notEqual(cacheKey('tools/list', { cursor: 'a' }), cacheKey('tools/list', { cursor: 'b' }));
    const cache = new ResultCache(() => 0);
    cache.set('tools/list', { cursor: 'a' }, { tools: ['a'], ttlMs: 1000 });
    assert.deepEqual(cache.get('tools/list', { cursor: 'a', _meta: { progressToken: 1 } }), {
      tools: ['a'],
      ttlMs: 1000,
    });
    assert.equal(cache.get('tools/list', { cursor: 'b' }), undefined, 'other parameters are another entry');
    assert.equal(cache.get('prompts/list', { cursor: 'a' }), undefined, 'another method is another entry');
  });

  test('at most MAX_CACHE_ENTRIES are kept; the oldest goes first', () => {
    const cache = new ResultCache(() => 0);
    for (let i = 0; i <= MAX_CACHE_ENTRIES; i++) {
      cache.set('resources/read', { uri: `file:///${i}` }, { contents: [], ttlMs: 1000 });
    }
    assert.equal(cache.size, MAX_CACHE_ENTRIES);
    assert.equal(cache.get('resources/read', { uri: 'file:///0' }), undefined);
    assert.ok(cache.get('resources/read', { uri: `file:///${MAX_CACHE_ENTRIES}` }));
    // Setting an entry again makes it the newest.
    cache.set('resources/read', { uri: 'file:///1' }, { contents: [], ttlMs: 1000 });
    cache.set('resources/read', { uri: 'file:///new' }, { contents: [], ttlMs: 1000 });
    assert.ok(cache.get('resources/read', { uri: 'file:///1' }));
    assert.equal(cache.get('resources/read', { uri: 'file:///2' }), undefined);
  });

  test('invalidate drops whole methods; invalidateUri the reads of one resource; clear everything', () => {
    const cache = new ResultCache(() => 0);
    cache.set('tools/list', {}, { ttlMs: 1000 });
    cache.set('tools/list', { cursor: 'x' }, { ttlMs: 1000 });
    cache.set('prompts/list', {}, { ttlMs: 1000 });
    cache.set('resources/read', { uri: 'file:///a' }, { ttlMs: 1000 });
    cache.set('resources/read', { uri: 'file:///b' }, { ttlMs: 1000 });
    cache.invalidate('tools/list');
    assert.equal(cache.size, 3);
    cache.invalidateUri('file:///a');
    assert.equal(cache.get('resources/read', { uri: 'file:///a' }), undefined);
    assert.ok(cache.get('resources/read', { uri: 'file:///b' }));
    cache.clear();
    assert.equal(cache.size, 0);
  });
});

/** A modern memory server whose lists carry ttlMs, counting what reaches it. */
function modernWithTtl(ttlMs = 60_000) {
  return memoryServers({
    era: 'modern',
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
    handlers: {
      'tools/list': (_params, _request, server) => ({
        tools: [{ name: `tool-${server.requests('tools/list').length}`, inputSchema: { type: 'object' } }],
        ttlMs,
      }),
      'resources/read': (params) => ({ contents: [{ uri: params.uri, text: 'x' }], ttlMs }),
    },
  });
}

describe('the Client caches modern results', () => {
  test('a fresh list is answered from the cache; other parameters and cache: false go to the server', async () => {
    const { spec, servers } = modernWithTtl();
    await using client = new Client({ name: 'cache', transport: spec });
    await client.connect();
    const first = await client.listTools();
    const second = await client.listTools();
    assert.deepEqual(second, first);
    assert.equal(servers[0]!.requests('tools/list').length, 1);
    await client.listTools({ cursor: 'page-2' });
    assert.equal(servers[0]!.requests('tools/list').length, 2, 'another cursor is another request');

    const uncached = memoryServers({
      era: 'modern',
      handlers: { 'tools/list': () => ({ tools: [], ttlMs: 60_000 }) },
    });
    await using plain = new Client({ name: 'plain', transport: uncached.spec, cache: false });
    await plain.connect();
    await plain.listTools();
    await plain.listTools();
    assert.equal(uncached.servers[0]!.requests('tools/list').length, 2);
  });

  test('tools/list_changed on our listen stream drops the cached list', async () => {
    const { spec, servers } = modernWithTtl();
    await using client = new Client({ name: 'cache', transport: spec });
    await client.connect();
    const changed = new Promise<void>((resolve) => client.once('toolsListChanged', resolve));
    await client.listTools();
    // Listening opened the stream; wait until the server has it.
    while (servers[0]!.listens.size === 0) await new Promise((resolve) => setImmediate(resolve));
    servers[0]!.notifyListeners('notifications/tools/list_changed', 'toolsListChanged');
    await changed;
    const after = await client.listTools();
    assert.equal(servers[0]!.requests('tools/list').length, 2);
    assert.equal(after.tools[0]!.name, 'tool-2');
  });

  test('resources/updated drops the reads of that resource only', async () => {
    const { spec, servers } = modernWithTtl();
    await using client = new Client({ name: 'cache', transport: spec });
    await client.connect();
    await client.readResource({ uri: 'file:///a' });
    await client.readResource({ uri: 'file:///b' });
    const updated = new Promise<void>((resolve) => client.once('resourceUpdated', () => resolve()));
    await client.subscribeResource('file:///a');
    servers[0]!.notifyListeners('notifications/resources/updated', 'resourceSubscriptions', {
      uri: 'file:///a',
    });
    await updated;
    await client.readResource({ uri: 'file:///a' });
    await client.readResource({ uri: 'file:///b' });
    const reads = servers[0]!.requests('resources/read').map((request) => request.params?.uri);
    assert.deepEqual(reads, ['file:///a', 'file:///b', 'file:///a']);
  });

  test('a result obtained through an input_required round is never cached', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      capabilities: { resources: {} },
      handlers: {
        'resources/read': (params) =>
          params.inputResponses === undefined
            ? {
                resultType: 'input_required',
                inputRequests: { root: { method: 'roots/list' } },
                requestState: 'state-1',
              }
            : { contents: [{ uri: params.uri, text: 'after input' }], ttlMs: 60_000 },
      },
    });
    await using client = new Client({
      name: 'cache',
      transport: spec,
      handlers: { roots: async () => ({ roots: [] }) },
    });
    await client.connect();
    await client.readResource({ uri: 'file:///a' });
    await client.readResource({ uri: 'file:///a' });
    // Two calls, each an input round and its retry: nothing was served from the cache.
    assert.equal(servers[0]!.requests('resources/read').length, 4);
  });

  test('legacy results are never cached, whatever they carry', async () => {
    const { spec, servers } = memoryServers({
      era: 'legacy',
      handlers: { 'tools/list': () => ({ tools: [], ttlMs: 60_000 }) },
    });
    await using client = new Client({ name: 'cache', transport: spec });
    await client.connect();
    assert.equal(client.era, 'legacy');
    await client.listTools();
    await client.listTools();
    assert.equal(servers[0]!.requests('tools/list').length, 2);
  });

  test('a new session starts with an empty cache', async () => {
    const { spec, servers } = modernWithTtl();
    await using client = new Client({
      name: 'cache',
      transport: spec,
      reconnect: { initialDelay: 1, maxDelay: 1, jitter: 0 },
    });
    await client.connect();
    await client.listTools();
    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    servers[0]!.peer.close({ type: 'exit_status', status: 1, signal: null });
    await ready;
    await client.listTools();
    assert.equal(servers.length, 2);
    assert.equal(servers[1]!.requests('tools/list').length, 1, 'the restarted server was asked again');
  });

  test('a server error is not cached', async () => {
    let fail = true;
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/list': () => {
          if (fail) throw new RpcError(-32603, 'not yet');
          return { tools: [], ttlMs: 60_000 };
        },
      },
    });
    await using client = new Client({ name: 'cache', transport: spec });
    await client.connect();
    await assert.rejects(client.listTools(), { code: -32603 });
    fail = false;
    await client.listTools();
    await client.listTools();
    assert.equal(servers[0]!.requests('tools/list').length, 2);
  });
});

describe('item 35: paginated caches and bad cursors', () => {
  /**
   * A modern server whose tools/list pages are fresh for a minute, cursors of one generation
   * (`g1-...`); `rotate()` starts a new generation, after which old cursors get -32602.
   */
  function pagedServer() {
    let generation = 1;
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/list': (params) => {
          const cursor = params.cursor as string | undefined;
          const page = (tools: string[], nextCursor?: string) => ({
            tools: tools.map((name) => ({ name: `${name}-g${generation}`, inputSchema: { type: 'object' } })),
            ...(nextCursor === undefined ? {} : { nextCursor }),
            ttlMs: 60_000,
            cacheScope: 'public',
          });
          if (cursor === undefined) return page(['a'], '');
          // The empty string is this server's second cursor: a cursor, not the end.
          if (cursor === '') return page(['b'], `g${generation}-c`);
          if (cursor === 'repeat') return page(['r'], 'repeat');
          if (cursor !== `g${generation}-c`) throw new RpcError(-32602, `invalid cursor ${cursor}`);
          return page(['c']);
        },
      },
    });
    return { spec, servers, rotate: () => generation++ };
  }

  const listCalls = (server: MemoryServer) => server.requests('tools/list').length;

  test('an empty-string cursor is fetched and cached as its own page', async () => {
    const { spec, servers } = pagedServer();
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    assert.deepEqual(names((await client.listTools()).tools), ['a-g1', 'b-g1', 'c-g1']);
    const cursors = servers[0]!.requests('tools/list').map((request) => request.params?.cursor);
    assert.deepEqual(cursors, [undefined, '', 'g1-c']);
    // Every page is fresh: the second walk is served from the cache, the '' page included.
    await client.listTools();
    const page = await client.listTools({ cursor: '' });
    assert.deepEqual(names(page.tools), ['b-g1']);
    assert.equal(listCalls(servers[0]!), 3);
  });

  test('a cursor the server refuses drops every cached page of that list', async () => {
    const { spec, servers } = pagedServer();
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    await client.listTools();
    await assert.rejects(
      client.listTools({ cursor: 'g0-stale' }),
      (error: unknown) => error instanceof McpError && error.code === -32602,
    );
    // The pages that were fresh are gone: the next walk asks the server for each again.
    await client.listTools();
    assert.equal(listCalls(servers[0]!), 3 + 1 + 3);
  });

  test('a walk that finds a stale cursor mid-way drops the cache and lists again from the start', async () => {
    let generation = 1;
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/list': (params) => {
          const cursor = params.cursor as string | undefined;
          const tool = (name: string) => ({
            name: `${name}-g${generation}`,
            inputSchema: { type: 'object' },
          });
          // The first page is fresh for a minute; the second is never cached (ttlMs 0).
          if (cursor === undefined)
            return { tools: [tool('a')], nextCursor: `g${generation}`, ttlMs: 60_000 };
          if (cursor !== `g${generation}`) throw new RpcError(-32602, `invalid cursor ${cursor}`);
          return { tools: [tool('b')], ttlMs: 0 };
        },
      },
    });
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    assert.deepEqual(names((await client.listTools()).tools), ['a-g1', 'b-g1']);
    generation = 2;
    // The cached first page hands out g1, refused now: dropped, and the walk starts over.
    assert.deepEqual(names((await client.listTools()).tools), ['a-g2', 'b-g2']);
    const cursors = servers[0]!.requests('tools/list').map((request) => request.params?.cursor);
    assert.deepEqual(cursors, [undefined, 'g1', 'g1', undefined, 'g2']);
  });

  test('a repeated cursor fails the walk and drops the cached pages of that list', async () => {
    let repeating = false;
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/list': (params) => {
          const tool = { name: 't', inputSchema: { type: 'object' } };
          if (params.cursor === undefined) return { tools: [tool], nextCursor: 'x', ttlMs: 60_000 };
          return { tools: [tool], ...(repeating ? { nextCursor: 'x' } : {}), ttlMs: 0 };
        },
      },
    });
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    await client.listTools();
    repeating = true;
    await assert.rejects(client.listTools(), /repeated the cursor "x"/);
    repeating = false;
    const before = listCalls(servers[0]!);
    await client.listTools();
    const cursors = servers[0]!
      .requests('tools/list')
      .slice(before)
      .map((request) => request.params?.cursor);
    assert.deepEqual(cursors, [undefined, 'x'], 'the cached first page was dropped');
  });
});
