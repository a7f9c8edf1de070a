// Change notifications as a unit, over an in-memory transport: modern listen streams (opened
// while someone listens, replaced then cancelled when the filter changes, routed by subscription
// id, re-opened after a restart) and the legacy resources/subscribe path.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { buildFilter, isEmptyFilter, sameFilter } from '../../src/client/subscriptions.js';
import type { ClientWarning } from '../../src/client/warnings.js';
import { CapabilityError } from '../../src/errors.js';
import type {
  JsonObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
} from '../../src/jsonrpc/messages.js';
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

    // Only the list_changed ones: the stream's acknowledgement may reach the client after this
    // listener is added (the server's listens are counted as it sends it), and it is a notification too.
    const notifications: string[] = [];
    client.on('notification', (notification) => {
      if (notification.method === 'notifications/tools/list_changed') notifications.push(notification.method);
    });
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

describe('what the server acknowledges (item 27) and streams it ended (item 69)', () => {
  /** A modern server that honours only toolsListChanged and file:///ok in its acknowledgements. */
  function narrowServer() {
    return memoryServers({
      era: 'modern',
      capabilities: CAPABILITIES,
      handlers: {
        'subscriptions/listen': (params, request, server) => {
          const asked = params.notifications as Record<string, unknown>;
          const granted: Record<string, unknown> = {};
          if (asked.toolsListChanged) granted.toolsListChanged = true;
          const uris = ((asked.resourceSubscriptions as string[] | undefined) ?? []).filter(
            (uri) => uri === 'file:///ok',
          );
          if (uris.length > 0) granted.resourceSubscriptions = uris;
          server.listens.set(request.id, granted);
          server.notify('notifications/subscriptions/acknowledged', {
            _meta: { [SUB_ID]: request.id },
            notifications: granted,
          });
          return undefined;
        },
      },
    });
  }

  test('item 27: a narrower grant is a subscription_narrowed warning naming what is missing', async () => {
    const { spec } = narrowServer();
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const warnings: ClientWarning[] = [];
    client.on('warning', (warning) => warnings.push(warning));
    client.on('toolsListChanged', () => {});
    client.on('promptsListChanged', () => {});
    await waitFor(() => warnings.length === 1, 'the warning');
    const [warning] = warnings;
    assert.equal(warning!.type, 'subscription_narrowed');
    assert.match(warning!.message, /without \{"promptsListChanged":true\}/);
    assert.deepEqual(warning!.granted, { toolsListChanged: true });
    assert.deepEqual(warning!.requested, { toolsListChanged: true, promptsListChanged: true });
  });

  test('item 27: subscribeResource rejects for a URI the acknowledgement leaves out, and forgets it', async () => {
    const { spec, servers } = narrowServer();
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    client.on('warning', () => {});
    await client.subscribeResource('file:///ok');
    await assert.rejects(
      client.subscribeResource('file:///refused'),
      (error: unknown) =>
        error instanceof CapabilityError &&
        /acknowledged the subscription without file:\/\/\/refused/.test(error.message),
    );
    // The next filter asks only for what is honoured.
    client.on('toolsListChanged', () => {});
    await waitFor(() => listenRequests(servers[0]!).length === 3, 'the third stream');
    const last = listenRequests(servers[0]!).at(-1)!;
    assert.deepEqual((last.params as { notifications: unknown }).notifications, {
      toolsListChanged: true,
      resourceSubscriptions: ['file:///ok'],
    });
  });

  test('item 69: a replaced stream the server already ended is not cancelled again', async () => {
    let holdAck = false;
    const { spec, servers } = memoryServers({
      era: 'modern',
      capabilities: CAPABILITIES,
      handlers: {
        'subscriptions/listen': (params, request, server) => {
          server.listens.set(request.id, params.notifications as JsonObject);
          if (!holdAck)
            server.notify('notifications/subscriptions/acknowledged', {
              _meta: { [SUB_ID]: request.id },
              notifications: params.notifications as JsonObject,
            });
          return undefined;
        },
      },
    });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const server = servers[0]!;
    const warnings: ClientWarning[] = [];
    client.on('warning', (warning) => warnings.push(warning));
    client.on('toolsListChanged', () => {});
    await waitFor(() => server.listens.size === 1, 'the first stream');
    holdAck = true;
    const subscribed = client.subscribeResource('file:///a');
    await waitFor(() => server.listens.size === 2, 'the replacement, not yet acknowledged');
    // The server ends listen-1 while listen-2 waits for its acknowledgement.
    server.notify('notifications/cancelled', { requestId: 'listen-1', reason: 'shutting down' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.notify('notifications/subscriptions/acknowledged', {
      _meta: { [SUB_ID]: 'listen-2' },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a'] },
    });
    await subscribed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(trail(server), ['listen listen-1', 'listen listen-2'], 'no cancel for listen-1');
    assert.deepEqual(warnings, [], 'the replaced stream ends quietly');
  });

  test('item 69: a replaced stream the server closed with a result is not cancelled either', async () => {
    let holdAck = false;
    const { spec, servers } = memoryServers({
      era: 'modern',
      capabilities: CAPABILITIES,
      handlers: {
        'subscriptions/listen': (params, request, server) => {
          server.listens.set(request.id, params.notifications as JsonObject);
          if (!holdAck)
            server.notify('notifications/subscriptions/acknowledged', {
              _meta: { [SUB_ID]: request.id },
              notifications: params.notifications as JsonObject,
            });
          return undefined;
        },
      },
    });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    const server = servers[0]!;
    client.on('warning', () => {});
    client.on('toolsListChanged', () => {});
    await waitFor(() => server.listens.size === 1, 'the first stream');
    holdAck = true;
    const subscribed = client.subscribeResource('file:///a');
    await waitFor(() => server.listens.size === 2, 'the replacement');
    server.answer('listen-1', { resultType: 'complete', _meta: { [SUB_ID]: 'listen-1' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.notify('notifications/subscriptions/acknowledged', {
      _meta: { [SUB_ID]: 'listen-2' },
      notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a'] },
    });
    await subscribed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(trail(server), ['listen listen-1', 'listen listen-2']);
  });

  test('item 70: a server that ends a stream has its reason logged (received)', async () => {
    const { spec, servers } = memoryServers({ era: 'modern', capabilities: CAPABILITIES });
    await using client = new Client({ name: 'subs', transport: spec });
    await client.connect();
    client.on('warning', () => {});
    const seen: unknown[] = [];
    const onCancellation = (message: unknown) => seen.push(message);
    diagnostics.subscribe('conduit-mcp:client:cancellation', onCancellation);
    try {
      client.on('toolsListChanged', () => {});
      await waitFor(() => servers[0]!.listens.size === 1, 'the stream');
      servers[0]!.notify('notifications/cancelled', { requestId: 'listen-1', reason: 'maintenance' });
      await waitFor(() => seen.length === 1, 'the logged cancellation');
      assert.deepEqual(seen, [
        { server: 'subs', direction: 'received', requestId: 'listen-1', reason: 'maintenance' },
      ]);
    } finally {
      diagnostics.unsubscribe('conduit-mcp:client:cancellation', onCancellation);
    }
  });
});
