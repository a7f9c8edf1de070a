// Hostile servers, through the public Client: whatever the server does, every request settles
// (a result or a typed rejection), no process of its group outlives close(), nothing it did not
// ask for is written to it, and memory stays bounded.
import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AbortError,
  Client,
  ClientClosedError,
  type ClientOptions,
  type CloseReason,
  ConnectionClosedError,
  type JsonRpcNotification,
  RequestTimeoutError,
  type StdioOptions,
} from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import {
  assertGroupsGone,
  assertOnlyAsked,
  assertTyped,
  perConnection,
  settledHeap,
  settleWithin,
  spawnedPids,
  track,
} from '../helpers/reliability.js';

guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;
const HANDSHAKE = ['server/discover', 'initialize'];

type TransportExtra = Partial<Omit<StdioOptions, 'command' | 'args'>>;

/** A client of hostile.mjs with these flags, its stdin recorded; no restart unless asked. */
function hostile(flags: string[], extra: Partial<ClientOptions> = {}, transport: TransportExtra = {}) {
  const record = stdinRecord();
  const spawned = spawnedPids();
  const client = new Client({
    name: 'hostile',
    transport: {
      type: 'stdio',
      ...nodeServer('hostile.mjs', ['--record', record.file, ...flags], { ...QUICK, ...transport }),
    },
    probeTimeout: 3000,
    requestTimeout: 10_000,
    reconnect: { maxReconnects: 0 },
    ...extra,
  });
  /** Closes the client and asserts that every process it started is gone. */
  const shut = async () => {
    await client.close();
    spawned.stop();
    assert.ok(spawned.pids.length > 0, 'a server was spawned');
    await assertGroupsGone(spawned.pids);
  };
  return { client, record, spawned, shut };
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('ids', () => {
  test('unknown, duplicate and error answers for unused ids are dropped: each request gets its own answer, once', async () => {
    const { client, record, shut } = hostile(['--ids']);
    await client.connect();
    const calls = Array.from({ length: 50 }, (_, n) => client.callTool({ name: 'echo', arguments: { n } }));
    const outcomes = await settleWithin(calls, 15_000);
    assert.deepEqual(assertTyped(outcomes), { result: 50 });
    outcomes.forEach((outcome, n) => {
      assert.equal(textOf((outcome as { value: unknown }).value), JSON.stringify({ n }));
    });
    // The duplicates and the stray error after each answer broke nothing.
    assert.deepEqual(await client.request('ping'), {});
    await sleep(100);
    const wire = assertOnlyAsked(record.read(), { allowedMethods: [...HANDSHAKE, 'tools/call', 'ping'] });
    assert.deepEqual(wire.cancelled, []);
    assert.equal(wire.requests.size, 2 + 50 + 1);
    await shut();
  });

  test('answers after a cancel or a timeout are dropped; the requests reject as abandoned, once', async () => {
    const { client, record, shut } = hostile(['--answer-cancelled']);
    await client.connect();
    const aborted = Array.from({ length: 10 }, () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('user gave up')), 50);
      return track(client.callTool({ name: 'slow', arguments: { ms: 300 } }, { signal: controller.signal }));
    });
    const timedOut = Array.from({ length: 10 }, () =>
      track(client.callTool({ name: 'slow', arguments: { ms: 300 } }, { timeout: 80 })),
    );
    const outcomes = await settleWithin([...aborted, ...timedOut], 10_000);
    assert.deepEqual(assertTyped(outcomes), { AbortError: 10, RequestTimeoutError: 10 });
    for (const outcome of outcomes.slice(0, 10)) {
      assert.ok((outcome as { reason: unknown }).reason instanceof AbortError);
    }
    // The immediate answers to each cancel, and the late ones at 300 ms, arrive now.
    await sleep(400);
    const after = await Promise.all(
      Array.from({ length: 20 }, (_, n) => client.callTool({ name: 'echo', arguments: { n } })),
    );
    for (const [n, result] of after.entries()) assert.equal(textOf(result), JSON.stringify({ n }));
    const wire = assertOnlyAsked(record.read(), { allowedMethods: [...HANDSHAKE, 'tools/call'] });
    assert.equal(wire.cancelled.length, 20, 'each abandoned request was cancelled once');
    const reasons = record
      .read()
      .filter((message) => message.method === 'notifications/cancelled')
      .map((message) => (message.params as { reason: string }).reason)
      .sort();
    assert.deepEqual(reasons, [...Array(10).fill('aborted'), ...Array(10).fill('timeout')]);
    await shut();
  });
});

describe('output that asks for nothing', () => {
  test('notifications, responses to nobody, null-id errors, invalid requests and junk get no reply', async () => {
    const { client, record, shut } = hostile(['--chatter']);
    const notifications: JsonRpcNotification[] = [];
    client.on('notification', (notification) => notifications.push(notification));
    await client.connect();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => client.callTool({ name: 'echo', arguments: { n } })),
    );
    for (const [n, result] of results.entries()) assert.equal(textOf(result), JSON.stringify({ n }));
    await sleep(100);
    assert.ok(notifications.length >= 20, `${notifications.length} notifications delivered`);
    const wire = assertOnlyAsked(record.read(), { allowedMethods: [...HANDSHAKE, 'tools/call'] });
    assert.deepEqual(wire.responses, []);
    assert.deepEqual(wire.cancelled, []);
    await shut();
  });

  test('a banner and \\r progress bars on stdout, at start and around every answer, are dropped', async () => {
    const { client, record, shut } = hostile(['--banner']);
    const junk: unknown[] = [];
    const onJunk = (message: unknown) => junk.push(message);
    dc.subscribe('conduit-mcp:transport:junk', onJunk);
    try {
      await client.connect();
      for (let n = 0; n < 8; n++) {
        assert.equal(
          textOf(await client.callTool({ name: 'echo', arguments: { n } })),
          JSON.stringify({ n }),
        );
      }
    } finally {
      dc.unsubscribe('conduit-mcp:transport:junk', onJunk);
    }
    // Two lines at start, two before each of the 2 handshake answers and the 8 calls.
    assert.ok(junk.length >= 2 + 2 * 8, `${junk.length} junk lines`);
    assert.equal(client.state, 'ready');
    assertOnlyAsked(record.read(), { allowedMethods: [...HANDSHAKE, 'tools/call'] });
    await shut();
  });

  test('invalid UTF-8: a junk line of it is dropped, inside a string it becomes U+FFFD', async () => {
    const { client, shut } = hostile([]);
    await client.connect();
    const result = await client.callTool({ name: 'garbled' });
    assert.equal(textOf(result), 'ok \ufffd\ufffd');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { after: 1 } })), '{"after":1}');
    await shut();
  });
});

describe('memory', () => {
  test('bursts of 10,000 notifications arrive whole and in order; memory stays bounded', async (t) => {
    const { client, record, shut } = hostile([]);
    await client.connect();
    let received = 0;
    let outOfOrder = 0;
    let expected = 0;
    client.on('log', (message) => {
      const { i } = message.data as { i: number };
      if (i !== expected) outOfOrder++;
      expected = i + 1;
      received++;
    });
    const burst = async () => {
      expected = 0;
      const result = await client.callTool({ name: 'burst', arguments: { count: 10_000, bytes: 200 } });
      assert.equal(textOf(result), 'sent 10000');
    };
    await burst(); // warm up
    const heapBefore = await settledHeap();
    const rssBefore = process.memoryUsage().rss;
    for (let round = 0; round < 5; round++) await burst();
    const heapGrowth = (await settledHeap()) - heapBefore;
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    t.diagnostic(
      `after 5 more bursts: heap ${(heapGrowth / 1024).toFixed(0)} KiB, RSS ${(rssGrowth / 1024).toFixed(0)} KiB`,
    );
    assert.equal(received, 60_000);
    assert.equal(outOfOrder, 0);
    // 50,000 notifications of 200 bytes went through (10 MB): none of it may stay.
    assert.ok(heapGrowth < 4 * 1024 * 1024, `heap grew by ${heapGrowth} bytes`);
    assert.ok(rssGrowth < 64 * 1024 * 1024, `RSS grew by ${rssGrowth} bytes`);
    await sleep(50);
    assertOnlyAsked(record.read(), { allowedMethods: [...HANDSHAKE, 'tools/call'] });
    await shut();
  });
});

describe('exits', () => {
  test('exit mid-response (half a line, then exit 0): every request rejects, the half line is never delivered', async () => {
    const { client, shut } = hostile([]);
    const notifications: unknown[] = [];
    client.on('notification', (notification) => notifications.push(notification));
    const closed = once(client, 'closed');
    await client.connect();
    const inFlight = Array.from({ length: 5 }, () =>
      track(client.callTool({ name: 'slow', arguments: { ms: 5000 } })),
    );
    const half = track(client.callTool({ name: 'half', arguments: { code: 0 } }));
    const started = performance.now();
    const outcomes = await settleWithin([...inFlight, half], 3000);
    assert.ok(performance.now() - started < 2000, 'rejected promptly, not at a timeout');
    for (const outcome of outcomes) {
      const reason = (outcome as { reason: unknown }).reason;
      assert.ok(reason instanceof ConnectionClosedError, String(reason));
      assert.deepEqual(reason.reason, { type: 'exit_status', status: 0, signal: null });
    }
    assert.deepEqual(notifications, []);
    assert.deepEqual((await closed)[0], { type: 'exit_status', status: 0, signal: null });
    await assert.rejects(client.request('ping'), ClientClosedError);
    await shut();
  });

  const endings: Array<{ label: string; args: Record<string, unknown>; reason: CloseReason }> = [
    ...[0, 1, 2, 42, 255].map((code) => ({
      label: `exit code ${code}`,
      args: { code },
      reason: { type: 'exit_status', status: code, signal: null } as const,
    })),
    ...(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'] as const).map((signal) => ({
      label: signal,
      args: { signal, partial: '{"jsonrpc":"2.0","id":' },
      reason: { type: 'exit_status', status: null, signal } as const,
    })),
  ];
  test('exit with each code and signal: in-flight requests reject with it, then the client restarts', async (t) => {
    for (const ending of endings) {
      await t.test(ending.label, async () => {
        const { client, spawned, shut } = hostile([], {
          reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 },
        });
        const disconnected = once(client, 'disconnected');
        await client.connect();
        const firstPid = client.pid!;
        const inFlight = Array.from({ length: 4 }, () =>
          track(client.callTool({ name: 'slow', arguments: { ms: 5000 } })),
        );
        const die = track(client.callTool({ name: 'die', arguments: ending.args }));
        const outcomes = await settleWithin([...inFlight, die], 3000);
        for (const outcome of outcomes) {
          const reason = (outcome as { reason: unknown }).reason;
          assert.ok(reason instanceof ConnectionClosedError, String(reason));
          assert.deepEqual(reason.reason, ending.reason);
        }
        assert.deepEqual((await disconnected)[0], ending.reason);
        assert.deepEqual(await client.request('ping'), {});
        assert.notEqual(client.pid, firstPid);
        assert.equal(isRunning(firstPid), false);
        assert.equal(spawned.pids.length, 2);
        await shut();
      });
    }
  });

  test('a crash loop under a stream of requests: each settles, the client gives up, no process is left', async (t) => {
    const record = stdinRecord();
    const spawned = spawnedPids();
    const client = new Client({
      name: 'crash-loop',
      transport: {
        type: 'stdio',
        ...nodeServer(
          'mcp.mjs',
          ['--era', 'legacy', '--exit-after-ready', '40', '--record', record.file],
          QUICK,
        ),
      },
      protocol: 'legacy',
      requestTimeout: 20_000,
      reconnect: { maxReconnects: 4, initialDelay: 20, maxDelay: 100, jitter: 0, resetAfter: 60_000 },
    });
    const closed = once(client, 'closed');
    const connected = track(client.connect());
    const requests: Promise<unknown>[] = [];
    while (client.state !== 'closed' && requests.length < 500) {
      requests.push(track(client.callTool({ name: 'echo', arguments: { n: requests.length } })));
      await sleep(5);
    }
    await connected;
    await closed;
    // After the client gave up, nothing waits for its 20 s timeout.
    const outcomes = await settleWithin(requests, 2000);
    const counts = assertTyped(outcomes);
    t.diagnostic(`${requests.length} requests: ${JSON.stringify(counts)}`);
    assert.ok((counts.result ?? 0) > 0, JSON.stringify(counts));
    assert.ok(
      (counts.ConnectionClosedError ?? 0) + (counts.ClientClosedError ?? 0) > 0,
      JSON.stringify(counts),
    );
    assert.equal(counts.RequestTimeoutError, undefined, 'nothing waited for its timeout');
    assert.equal(spawned.pids.length, 5, 'the first start and four restarts');
    spawned.stop();
    await client.close();
    await assertGroupsGone(spawned.pids);
    const connections = perConnection(record.read());
    assert.equal(connections.length, 5);
    for (const recorded of connections)
      assertOnlyAsked(recorded, { allowedMethods: ['initialize', 'tools/call'] });
  });

  test('a server that dies at every start: requests waiting for it reject when the client gives up', async () => {
    const spawned = spawnedPids();
    const client = new Client({
      name: 'dead-on-arrival',
      transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--exit-at-start', '3'], QUICK) },
      requestTimeout: 30_000,
      reconnect: { maxReconnects: 3, initialDelay: 20, jitter: 0 },
    });
    const connected = track(client.connect());
    const waiting = Array.from({ length: 20 }, () => track(client.request('ping')));
    const started = performance.now();
    const outcomes = await settleWithin([connected, ...waiting], 10_000);
    assert.ok(performance.now() - started < 8000);
    const [first, ...rest] = outcomes;
    assert.ok((first as { reason: unknown }).reason instanceof ConnectionClosedError);
    for (const outcome of rest) {
      const reason = (outcome as { reason: unknown }).reason;
      assert.ok(reason instanceof ClientClosedError, String(reason));
      assert.deepEqual(reason.reason, { type: 'exit_status', status: 3, signal: null });
    }
    spawned.stop();
    // One start, one restart straight into initialize after the exit during the probe, three retries.
    assert.equal(spawned.pids.length, 5);
    await client.close();
    await assertGroupsGone(spawned.pids);
  });
});

describe('servers that will not stop or will not talk', () => {
  test('a server ignoring EOF and SIGTERM, with a grandchild ignoring both: close() ends the whole tree', async () => {
    const { client, shut } = hostile(['--stubborn']);
    const grandchild = new Promise<number>((resolve) => {
      client.on('notification', (notification) => {
        if (notification.method === 'notifications/grandchild') resolve(notification.params!.pid as number);
      });
    });
    await client.connect();
    const pid = client.pid!;
    const child = await grandchild;
    assert.ok(isRunning(child));
    const inFlight = track(client.callTool({ name: 'slow', arguments: { ms: 60_000 } }));
    const started = performance.now();
    await shut();
    const elapsed = performance.now() - started;
    await assert.rejects(
      inFlight,
      (error) => error instanceof ConnectionClosedError && error.reason.type === 'closed',
    );
    assert.equal(isRunning(pid), false);
    assert.equal(isRunning(child), false);
    assert.ok(elapsed >= 550, `gone after ${elapsed} ms: it took SIGKILL after both graces`);
  });

  test('a server that stops reading: requests fail with write_queue_full, never block, and it is stopped', async () => {
    const { client, shut } = hostile(['--stop-reading'], {}, { maxWriteQueueBytes: 256 * 1024 });
    await client.connect();
    const big = 'b'.repeat(16 * 1024);
    const started = performance.now();
    const calls = Array.from({ length: 200 }, () =>
      track(client.callTool({ name: 'echo', arguments: { big } })),
    );
    assert.ok(performance.now() - started < 1000, 'issuing requests never waited for the server');
    const outcomes = await settleWithin(calls, 5000);
    const full = outcomes.filter(
      (outcome) =>
        outcome.status === 'rejected' &&
        outcome.reason instanceof ConnectionClosedError &&
        outcome.reason.reason.type === 'write_queue_full',
    );
    assert.ok(full.length > 0, JSON.stringify(assertTyped(outcomes)));
    assert.deepEqual(Object.keys(assertTyped(outcomes)), ['ConnectionClosedError']);
    await shut();
  });

  test('a server that floods stdout without a newline: connect() rejects with message_too_large', async () => {
    const spawned = spawnedPids();
    const client = new Client({
      name: 'flood',
      transport: {
        type: 'stdio',
        ...nodeServer('flood.mjs', [], { ...QUICK, maxMessageBytes: 1024 * 1024 }),
      },
      reconnect: { maxReconnects: 0 },
    });
    const connected = client.connect();
    const waiting = client.request('ping').catch((error: unknown) => error);
    await assert.rejects(
      connected,
      (error) => error instanceof ConnectionClosedError && error.reason.type === 'message_too_large',
    );
    assert.ok((await waiting) instanceof ClientClosedError);
    spawned.stop();
    await client.close();
    await assertGroupsGone(spawned.pids);
  });

  test('a server that never reads stdin: connect() rejects at its timeouts, nothing hangs', async () => {
    const spawned = spawnedPids();
    const client = new Client({
      name: 'no-read',
      transport: { type: 'stdio', ...nodeServer('no-read.mjs', [], QUICK) },
      probeTimeout: 200,
      requestTimeout: 400,
      reconnect: { maxReconnects: 0 },
    });
    await assert.rejects(client.connect(), RequestTimeoutError);
    spawned.stop();
    await client.close();
    await assertGroupsGone(spawned.pids);
  });
});
