// Change notifications as a unit, over an in-memory transport: modern listen streams (opened
// while someone listens, replaced then cancelled when the filter changes, routed by subscription
// id, re-opened after a restart) and the legacy resources/subscribe path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { buildFilter, isEmptyFilter, sameFilter } from '../../src/client/subscriptions.js';
import { CapabilityError } from '../../src/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../src/jsonrpc/messages.js';
import { type MemoryServer, memoryServers, SUB_ID } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

const CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
};
const FAST_RECONNECT = { initialDelay: 1, maxDelay: 1, jitter: 0 };

/** What the client wrote, as [method, id or requestId] pairs, for ordering assertions. */
function trail(server: MemoryServer): string[] {
  return server.peer.received
    .filter((message): message is JsonRpcMessage & { method: string } => 'method' in message)
    .filter(
      (message) => message.method === 'subscriptions/listen' || message.method === 'notifications/cancelled',
    )
    .map((message) =>
      message.method === 'subscriptions/listen'
        ? `listen ${(message as JsonRpcRequest).id}`
        : `cancel ${(message as JsonRpcNotification).params?.requestId}`,
    );
}

const listenRequests = (server: MemoryServer) => server.requests('subscriptions/listen');

describe('filters', () => {
  test('buildFilter asks for each wanted list and the sorted URIs; nothing wanted is empty', () => {
    assert.deepEqual(buildFilter(new Set(), new Set()), {});
    assert.ok(isEmptyFilter(buildFilter(new Set(), new Set())));
    assert.deepEqual(
      buildFilter(new Set(['toolsListChanged', 'promptsListChanged']), new Set(['b:', 'a:'])),
      {
        toolsListChanged: true,
        promptsListChanged: true,
        resourceSubscriptions: ['a:', 'b:'],
      },
    );
    assert.ok(sameFilter(undefined, {}));
    assert.ok(sameFilter({ resourceSubscriptions: ['a:'] }, buildFilter(new Set(), new Set(['a:']))));
    assert.ok(!sameFilter({ toolsListChanged: true }, {}));
  });
});

describe('modern listen streams', () => {
  test('a list_changed listener opens one stream; only notifications tagged with its id count', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: CAPABILITIES });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const server = servers[0]!;
    assert.equal(listenRequests(server).length, 0, 'nobody listens yet: no stream');
    let changes = 0;
    client.on('toolsListChanged', () => changes++);
    await waitFor(() => server.listens.size === 1, 'the listen stream');
    const [listen] = listenRequests(server);
    assert.equal(typeof listen!.id, 'string');
    assert.deepEqual(listen!.params?.notifications, { toolsListChanged: true });

    const notifications: string[] = [];
    client.on('notification', (notification) => notifications.push(notification.method));
    server.notify('notifications/tools/list_changed'); // untagged: not ours
    server.notify('notifications/tools/list_changed', { _meta: { [SUB_ID]: 'listen-999' } }); // unknown id
    server.notifyListeners('notifications/tools/list_changed', 'toolsListChanged');
    await waitFor(() => notifications.length === 3, 'the three notifications');
    assert.equal(changes, 1, 'only the notification on our stream is a change');
  });

  test('a new filter opens the new stream first, then cancels the old one; the last listener closes it', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: CAPABILITIES });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const server = servers[0]!;
    const onTools = () => {};
    client.on('toolsListChanged', onTools);
    await waitFor(() => server.listens.size === 1, 'the first stream');
    await client.subscribeResource('file:///a');
    // Resolved once the new stream was acknowledged; the old one's cancellation is on its way.
    await waitFor(() => server.listens.size === 1, 'the old stream cancelled');
    assert.deepEqual(
      [...server.listens.values()],
      [{ toolsListChanged: true, resourceSubscriptions: ['file:///a'] }],
    );
    assert.deepEqual(trail(server), ['listen listen-1', 'listen listen-2', 'cancel listen-1']);

    await client.unsubscribeResource('file:///a');
    client.off('toolsListChanged', onTools);
    await waitFor(() => server.listens.size === 0, 'every stream cancelled');
    assert.deepEqual(trail(server).slice(3), ['listen listen-3', 'cancel listen-2', 'cancel listen-3']);
  });

  test('a server that ends the stream is not answered; the next change of filter opens a new one', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: CAPABILITIES });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const server = servers[0]!;
    client.on('toolsListChanged', () => {});
    await waitFor(() => server.listens.size === 1, 'the stream');
    server.listens.clear();
    const ended = new Promise<void>((resolve) =>
      client.on('notification', (notification) => {
        if (notification.method === 'notifications/cancelled') resolve();
      }),
    );
    server.notify('notifications/cancelled', { requestId: 'listen-1' });
    await ended;
    client.on('promptsListChanged', () => {});
    await waitFor(() => server.listens.size === 1, 'a new stream');
    assert.deepEqual([...server.listens.values()], [{ toolsListChanged: true, promptsListChanged: true }]);
    assert.deepEqual(
      trail(server),
      ['listen listen-1', 'listen listen-2'],
      'the ended stream is not cancelled',
    );
  });

  test('after a restart the same filter is listened for again on the new server', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: CAPABILITIES });
    await using client = new Client({ name: 'subs', transport: spec, reconnect: FAST_RECONNECT });
    await client.connect();
    client.on('resourcesListChanged', () => {});
    await client.subscribeResource('file:///a');
    servers[0]!.peer.close({ type: 'exit_status', status: 1, signal: null });
    await waitFor(
      () => servers.length === 2 && servers[1]!.listens.size === 1,
      'the stream on the new server',
    );
    assert.deepEqual(
      [...servers[1]!.listens.values()],
      [{ resourcesListChanged: true, resourceSubscriptions: ['file:///a'] }],
    );
    let updated = '';
    client.on('resourceUpdated', ({ uri }) => {
      updated = uri;
    });
    servers[1]!.notifyListeners('notifications/resources/updated', 'resourceSubscriptions', {
      uri: 'file:///a',
    });
    await waitFor(() => updated === 'file:///a', 'the update on the new stream');
  });

  test('a stream the server never acknowledges fails subscribeResource after the request timeout', async () => {
    const { spec } = memoryServers({
      era: 'modern',
      capabilities: CAPABILITIES,
      handlers: { 'subscriptions/listen': () => undefined },
    });
    await using client = new Client({ name: 'subs', transport: spec, requestTimeout: 200 });
    await client.connect();
    await assert.rejects(client.subscribeResource('file:///a'), {
      message: 'the server did not acknowledge listen-1 within 200 ms',
    });
  });

  test('subscribeResource needs resources.subscribe: a CapabilityError, nothing sent', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: { resources: {} } });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    await assert.rejects(client.subscribeResource('file:///a'), (error) => error instanceof CapabilityError);
    assert.equal(listenRequests(servers[0]!).length, 0);
  });
});

describe('legacy change notifications', () => {
  test('list_changed arrives unsolicited; resources are watched with resources/subscribe, again after a restart', async () => {
    const subscribed: string[] = [];
    const { spec, servers } = memoryServers({
      era: 'legacy',
      capabilities: CAPABILITIES,
      handlers: {
        'resources/subscribe': (params) => {
          subscribed.push(`+${params.uri}`);
          return {};
        },
        'resources/unsubscribe': (params) => {
          subscribed.push(`-${params.uri}`);
          return {};
        },
      },
    });
    await using client = new Client({ name: 'subs', transport: spec, reconnect: FAST_RECONNECT });
    await client.connect();
    let changes = 0;
    client.on('toolsListChanged', () => changes++);
    servers[0]!.notify('notifications/tools/list_changed');
    await waitFor(() => changes === 1, 'the unsolicited change');
    assert.equal(listenRequests(servers[0]!).length, 0, 'legacy never listens');

    await client.subscribeResource('file:///a');
    await client.subscribeResource('file:///b');
    await client.unsubscribeResource('file:///b');
    assert.deepEqual(subscribed, ['+file:///a', '+file:///b', '-file:///b']);

    servers[0]!.peer.close({ type: 'exit_status', status: 1, signal: null });
    await waitFor(() => subscribed.length === 4, 'the re-subscription');
    assert.equal(servers.length, 2);
    assert.equal(subscribed[3], '+file:///a');
  });
});
