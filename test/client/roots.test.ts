// Roots (§f items 52 and 53) over the memory transport: only file:// URIs, normalised, without
// `..` escapes, reach the server, from the `roots` option or handlers.roots; setRoots() changes
// them and, in the legacy era, sends notifications/roots/list_changed (roots.listChanged declared).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeRoot } from '../../src/client/roots.js';
import { Client, ConfigError, UsageError } from '../../src/index.js';
import type { JsonRpcMessage, RequestId } from '../../src/jsonrpc/messages.js';
import { type MemoryServer, memoryServers } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

type Answer = { result?: { roots: unknown[] }; error?: { code: number; message: string } };

async function askRoots(server: MemoryServer, id: RequestId): Promise<Answer> {
  server.peer.send({ jsonrpc: '2.0', id, method: 'roots/list' } as JsonRpcMessage);
  const answered = () =>
    server.peer.received.find((message) => 'id' in message && message.id === id && !('method' in message));
  await waitFor(() => answered() !== undefined, 'the roots/list answer');
  return answered() as Answer;
}

describe('item 52: root URIs', () => {
  test('file:// URIs are normalised; other schemes, .. segments (plain or encoded), queries are refused', () => {
    assert.deepEqual(normalizeRoot({ uri: 'file://localhost/srv/a b/./x', name: 'x' }), {
      uri: 'file:///srv/a%20b/x',
      name: 'x',
    });
    for (const [uri, problem] of [
      ['https://example.com/', /not a file:\/\/ URI/],
      ['/srv/data', /not a URI/],
      ['file:///srv/../etc', /'\.\.' segment/],
      ['file:///srv/%2e%2E/etc', /'\.\.' segment/],
      ['file:///srv/.%2e', /'\.\.' segment/],
      ['file:///srv/data?x=1', /query or fragment/],
    ] as const) {
      assert.match(String(normalizeRoot({ uri })), problem, uri);
    }
    // A name with dots is not a `..` segment.
    assert.deepEqual(normalizeRoot({ uri: 'file:///srv/..data' }), { uri: 'file:///srv/..data' });
    assert.match(String(normalizeRoot({ uri: 'file:///a', name: 3 })), /name .* must be a string/);
  });

  test('the roots option is checked at construction (ConfigError naming the entry); not with handlers.roots', () => {
    const { spec } = memoryServers({ era: 'legacy' });
    assert.throws(
      () =>
        new Client({ name: 'r', transport: spec, roots: [{ uri: 'file:///ok' }, { uri: 'file:///a/../b' }] }),
      (error: unknown) =>
        error instanceof ConfigError && error.key === 'roots[1]' && /'\.\.' segment/.test(error.message),
    );
    assert.throws(
      () =>
        new Client({
          name: 'r',
          transport: spec,
          roots: [],
          handlers: { roots: async () => ({ roots: [] }) },
        }),
      (error: unknown) => error instanceof ConfigError && error.key === 'roots',
    );
  });

  test('handlers.roots answers are checked: a non-file root is refused with -32603, a valid one normalised', async () => {
    let answer: unknown = { roots: [{ uri: 'https://example.com/' }] };
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({ name: 'r', transport: spec, handlers: { roots: async () => answer } });
    await client.connect();
    const server = servers[0]!;
    assert.deepEqual(server.requests('initialize')[0]!.params!.capabilities, { roots: {} });
    const refused = await askRoots(server, 1);
    assert.equal(refused.error?.code, -32603);
    assert.match(
      refused.error!.message,
      /handlers\.roots must resolve with .*not a file:\/\/ URI.*roots\[0\]/,
    );
    answer = { roots: [{ uri: 'file://localhost/home/me/project' }] };
    assert.deepEqual((await askRoots(server, 2)).result, { roots: [{ uri: 'file:///home/me/project' }] });
  });
});

describe('item 53: setRoots and roots/list_changed', () => {
  test('legacy: roots.listChanged is declared; setRoots sends list_changed and the new list is answered', async () => {
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({
      name: 'r',
      transport: spec,
      roots: [{ uri: 'file:///srv/a', name: 'a' }],
    });
    await client.connect();
    const server = servers[0]!;
    assert.deepEqual(server.requests('initialize')[0]!.params!.capabilities, {
      roots: { listChanged: true },
    });
    assert.deepEqual((await askRoots(server, 1)).result, { roots: [{ uri: 'file:///srv/a', name: 'a' }] });

    client.setRoots([{ uri: 'file://localhost/srv/b' }]);
    await waitFor(
      () => server.notifications('notifications/roots/list_changed').length === 1,
      'list_changed',
    );
    assert.deepEqual(client.roots, [{ uri: 'file:///srv/b' }]);
    assert.deepEqual((await askRoots(server, 2)).result, { roots: [{ uri: 'file:///srv/b' }] });

    // A bad list changes nothing and sends nothing.
    assert.throws(
      () => client.setRoots([{ uri: 'file:///srv/b/../../etc' }]),
      (error: unknown) =>
        error instanceof UsageError && /setRoots: .*'\.\.' segment.*roots\[0\]/.test(error.message),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.notifications('notifications/roots/list_changed').length, 1);
    assert.deepEqual(client.roots, [{ uri: 'file:///srv/b' }]);
  });

  test('without roots or handlers.roots, roots/list is answered -32601 and no roots capability is declared', async () => {
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({ name: 'r', transport: spec });
    await client.connect();
    assert.deepEqual(servers[0]!.requests('initialize')[0]!.params!.capabilities, {});
    assert.equal((await askRoots(servers[0]!, 1)).error?.code, -32601);
  });

  test('setRoots needs the roots option; before connect it only changes the list', async () => {
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using plain = new Client({ name: 'r', transport: spec });
    assert.throws(
      () => plain.setRoots([]),
      (error: unknown) => error instanceof UsageError && /needs the roots option/.test(error.message),
    );
    await using client = new Client({ name: 'r2', transport: spec, roots: [] });
    client.setRoots([{ uri: 'file:///x' }]);
    await client.connect();
    const server = servers.at(-1)!;
    assert.equal(server.notifications('notifications/roots/list_changed').length, 0);
    assert.deepEqual((await askRoots(server, 1)).result, { roots: [{ uri: 'file:///x' }] });
  });

  test('modern: the roots go in the input response of a roots/list input request; no notification', async () => {
    const { spec, servers } = memoryServers({
      era: 'modern',
      handlers: {
        'tools/call': (params) =>
          params.inputResponses === undefined
            ? { resultType: 'input_required', inputRequests: { r: { method: 'roots/list', params: {} } } }
            : { content: [], structuredContent: params.inputResponses as Record<string, unknown> },
      },
    });
    await using client = new Client({ name: 'r', transport: spec, roots: [{ uri: 'file:///one' }] });
    await client.connect();
    client.setRoots([{ uri: 'file://localhost/two' }]);
    const result = await client.callTool({ name: 'x' });
    assert.deepEqual(result.structuredContent, { r: { roots: [{ uri: 'file:///two' }] } });
    assert.equal(servers[0]!.notifications('notifications/roots/list_changed').length, 0);
  });
});
