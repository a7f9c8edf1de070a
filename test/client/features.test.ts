import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { afterEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import { CapabilityError, ProtocolError } from '../../src/errors.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { validateMessage } from '../helpers/schema.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;

function fixtureClient(era: 'legacy' | 'modern', args: string[] = [], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'fixture',
    transport: {
      type: 'stdio',
      ...nodeServer('mcp.mjs', ['--era', era, '--record', record.file, ...args], QUICK),
    },
    protocol: era,
    reconnect: { initialDelay: 20, maxDelay: 100, jitter: 0, maxReconnects: 2 },
    ...extra,
  });
  clients.push(client);
  const count = (method: string) => record.read().filter((message) => message.method === method).length;
  return { client, record, count };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

for (const era of ['legacy', 'modern'] as const) {
  describe(`${era} era`, () => {
    test('list* walks every page; with a cursor it returns that page and nextCursor', async () => {
      const { client, count } = fixtureClient(era, ['--page-size', '2']);
      await client.connect();
      const all = await client.listTools();
      assert.deepEqual(
        all.tools.map((tool) => tool.name),
        ['echo', 'slow', 'crash', 'fail', 'ask', 'change', 'end-listen', 'env'],
      );
      assert.equal(all.nextCursor, undefined);
      assert.equal(count('tools/list'), 4);
      const page = await client.listTools({ cursor: '2' });
      assert.deepEqual(
        page.tools.map((tool) => tool.name),
        ['crash', 'fail'],
      );
      assert.equal(page.nextCursor, '4');
    });

    test('a server that repeats a cursor is stopped, not followed forever', async () => {
      const { client } = fixtureClient(era, ['--repeat-cursor']);
      await client.connect();
      await assert.rejects(
        client.listTools(),
        (error) => error instanceof ProtocolError && /repeated the cursor/.test(error.message),
      );
    });

    test('tools, resources, prompts and completion all answer', async () => {
      const { client } = fixtureClient(era);
      await client.connect();
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { a: 1 } })), '{"a":1}');
      const failed = await client.callTool({ name: 'fail' });
      assert.equal(failed.isError, true, 'isError is a result, not a rejection');
      assert.deepEqual((await client.listResources()).resources, [{ uri: 'file:///a.txt', name: 'a' }]);
      const read = await client.readResource({ uri: 'file:///a.txt' });
      assert.deepEqual(read.contents, [{ uri: 'file:///a.txt', text: 'contents of file:///a.txt' }]);
      assert.deepEqual((await client.listPrompts()).prompts, [
        { name: 'greet', arguments: [{ name: 'name', required: true }] },
      ]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'hello Ada' });
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'name', value: 'A' },
      });
      assert.deepEqual(completion.completion.values, ['a', 'b']);
    });

    test('a method behind an undeclared capability fails fast, without a round trip', async () => {
      const { client, record } = fixtureClient(era, ['--without', 'prompts']);
      await client.connect();
      await sleep(100); // the server has recorded the whole handshake
      const before = record.read().length;
      await assert.rejects(
        client.listPrompts(),
        (error) =>
          error instanceof CapabilityError &&
          error.method === 'prompts/list' &&
          /does not declare the prompts capability/.test(error.message),
      );
      await sleep(50);
      assert.equal(record.read().length, before, 'nothing was sent');
    });

    test('log messages arrive as log events once a level is set', async () => {
      const { client, record } = fixtureClient(era);
      const logs: unknown[] = [];
      client.on('log', (message) => logs.push(message));
      await client.connect();
      await client.callTool({ name: 'echo', arguments: { quiet: true } });
      assert.deepEqual(logs, [], 'no level, no log messages');
      await client.setLogLevel('info');
      await client.callTool({ name: 'echo', arguments: { loud: true } });
      assert.deepEqual(logs, [{ level: 'info', logger: 'echo', data: { loud: true } }]);
      if (era === 'legacy') {
        const setLevel = await record.waitFor((message) => message.method === 'logging/setLevel');
        validateMessage(setLevel, 'legacy', 'SetLevelRequest');
      } else {
        const call = record
          .read()
          .filter((message) => message.method === 'tools/call')
          .at(-1)!;
        const meta = (call.params as { _meta: Record<string, unknown> })._meta;
        assert.equal(meta['io.modelcontextprotocol/logLevel'], 'info');
        validateMessage(call, 'modern', 'CallToolRequest');
      }
    });

    test('change notifications and resource updates become events, also after a restart', async () => {
      const { client, record } = fixtureClient(era);
      const events: string[] = [];
      client.on('toolsListChanged', () => events.push('tools'));
      client.on('promptsListChanged', () => events.push('prompts'));
      client.on('resourceUpdated', ({ uri }) => events.push(`updated ${uri}`));
      await client.connect();
      await client.subscribeResource('file:///a.txt');
      await client.callTool({ name: 'change' });
      await sleep(100);
      assert.deepEqual(events.sort(), ['prompts', 'tools', 'updated file:///a.txt']);
      if (era === 'modern') {
        const listens = record.read().filter((message) => message.method === 'subscriptions/listen');
        for (const listen of listens) validateMessage(listen, 'modern', 'SubscriptionsListenRequest');
        assert.deepEqual((listens.at(-1)!.params as { notifications: unknown }).notifications, {
          promptsListChanged: true,
          resourceSubscriptions: ['file:///a.txt'],
          toolsListChanged: true,
        });
        assert.equal(typeof listens.at(-1)!.id, 'string', 'listen requests use string ids');
        const cancelled = record.read().filter((message) => message.method === 'notifications/cancelled');
        assert.ok(cancelled.length >= 1, 'a replaced listen stream was cancelled');
        for (const cancel of cancelled) validateMessage(cancel, 'modern', 'CancelledNotification');
      }
      events.length = 0;
      await client.callTool({ name: 'crash' }).catch(() => {});
      await once(client, 'ready', { signal: AbortSignal.timeout(10_000) });
      await sleep(100);
      await client.callTool({ name: 'change' });
      await sleep(100);
      assert.deepEqual(
        events.sort(),
        ['prompts', 'tools', 'updated file:///a.txt'],
        'restored after the restart',
      );
    });
  });
}

test('modern: the listen stream opens only while someone listens, and closes when nobody does', async () => {
  const { client, record, count } = fixtureClient('modern');
  await client.connect();
  await sleep(50);
  assert.equal(count('subscriptions/listen'), 0);
  const listener = () => {};
  client.on('toolsListChanged', listener);
  await record.waitFor((message) => message.method === 'subscriptions/listen');
  client.off('toolsListChanged', listener);
  const cancel = await record.waitFor((message) => message.method === 'notifications/cancelled');
  assert.deepEqual(cancel.params, { requestId: 'listen-1', reason: 'aborted' });
});

test('modern: a server that ends the listen stream does not break the client', async () => {
  const { client } = fixtureClient('modern');
  const events: string[] = [];
  client.on('toolsListChanged', () => events.push('tools'));
  await client.connect();
  await sleep(100);
  await client.callTool({ name: 'end-listen' });
  await client.callTool({ name: 'change' });
  assert.equal(text(await client.callTool({ name: 'echo', arguments: { ok: 1 } })), '{"ok":1}');
  assert.deepEqual(events, []);
});

describe('caching of modern results', () => {
  test('fresh list and read results are served from the cache; a change notification drops them', async () => {
    const { client, count } = fixtureClient('modern', ['--ttl', '60000']);
    client.on('toolsListChanged', () => {});
    await client.connect();
    await client.listTools();
    await client.listTools();
    await client.readResource({ uri: 'file:///a.txt' });
    await client.readResource({ uri: 'file:///a.txt' });
    assert.equal(count('tools/list'), 1);
    assert.equal(count('resources/read'), 1);
    await client.callTool({ name: 'change' });
    await sleep(100);
    await client.listTools();
    assert.equal(count('tools/list'), 2, 'list_changed made the cached list stale');
    await client.callTool({ name: 'crash' }).catch(() => {});
    await once(client, 'ready', { signal: AbortSignal.timeout(10_000) });
    await client.listTools();
    assert.equal(count('tools/list'), 3, 'a restart empties the cache');
  });

  test('ttlMs 0, cache: false and legacy results are never cached', async () => {
    for (const [era, args, extra] of [
      ['modern', ['--ttl', '0'], {}],
      ['modern', ['--ttl', '60000'], { cache: false }],
      ['legacy', ['--ttl', '60000'], {}],
    ] as const) {
      const { client, count } = fixtureClient(era, [...args], extra);
      await client.connect();
      await client.listTools();
      await client.listTools();
      assert.equal(count('tools/list'), 2, `${era} ${args.join(' ')} ${JSON.stringify(extra)}`);
      await client.close();
    }
  });
});

test('every request is traced on the conduit-mcp:request tracing channel', async () => {
  const seen: Array<[string, unknown]> = [];
  const handlers = {
    start: (message: unknown) => seen.push(['start', message]),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (message: unknown) => seen.push(['asyncEnd', message]),
    error: (message: unknown) => seen.push(['error', message]),
  };
  const channel = dc.tracingChannel('conduit-mcp:request');
  channel.subscribe(handlers);
  try {
    const { client } = fixtureClient('legacy');
    await client.connect();
    await client.callTool({ name: 'echo' });
    await client.request('no/such/method').catch(() => {});
    const starts = seen
      .filter(([kind]) => kind === 'start')
      .map(([, message]) => message as { method: string; server: string });
    assert.deepEqual(
      starts.map((message) => [message.server, message.method]),
      [
        ['fixture', 'tools/call'],
        ['fixture', 'no/such/method'],
      ],
    );
    assert.equal(seen.filter(([kind]) => kind === 'error').length, 1);
  } finally {
    channel.unsubscribe(handlers);
  }
});

test('await using closes the client and its server at the end of the block', async () => {
  let pid: number | undefined;
  {
    await using client = new Client({
      name: 'scoped',
      transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--era', 'legacy'], QUICK) },
      protocol: 'legacy',
    });
    await client.connect();
    pid = client.pid;
    assert.equal(isRunning(pid!), true);
  }
  await sleep(300);
  assert.equal(isRunning(pid!), false);
});

test('hundreds of connect/close cycles leak no listeners, timers or processes', async () => {
  const exitListeners = process.listenerCount('exit');
  // Four lanes of 50 cycles each: 200 clients, each connected and closed.
  await Promise.all(
    [0, 1, 2, 3].map(async (lane) => {
      for (let cycle = 0; cycle < 50; cycle++) {
        const client = new Client({
          name: `cycle-${lane}-${cycle}`,
          transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--era', 'legacy'], QUICK) },
          protocol: 'legacy',
        });
        await client.connect();
        await client.close();
      }
    }),
  );
  await sleep(500);
  assert.equal(process.listenerCount('exit'), exitListeners);
  assert.ok(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length < 5);
});
