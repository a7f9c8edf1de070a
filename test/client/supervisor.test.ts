import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { reconnectDelay } from '../../src/client/backoff.js';
import { Client } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import {
  ClientClosedError,
  ConfigError,
  ConnectionClosedError,
  RequestTimeoutError,
  SpawnError,
} from '../../src/errors.js';
import { nodeServer } from '../helpers/fixtures.js';
import { runHost } from '../helpers/hosts.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';

guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;

function fixtureClient(args: string[], extra: Partial<ClientOptions> = {}) {
  const client = new Client({
    name: 'fixture',
    transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--era', 'legacy', ...args], QUICK) },
    probeTimeout: 1000,
    reconnect: { initialDelay: 50, maxDelay: 1000, jitter: 0, maxReconnects: 3 },
    ...extra,
  });
  const events: Array<[string, unknown]> = [];
  for (const name of ['ready', 'disconnected', 'reconnecting', 'closed'] as const) {
    client.on(name, (payload?: unknown) => events.push([name, payload]));
  }
  return { client, events };
}

test('reconnectDelay grows exponentially, is capped, and spreads by the jitter', () => {
  const policy = { maxReconnects: 5, initialDelay: 100, maxDelay: 1000, factor: 2, jitter: 0, resetAfter: 0 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((attempt) => reconnectDelay(attempt, policy)),
    [100, 200, 400, 800, 1000, 1000],
  );
  const jittered = { ...policy, jitter: 0.2 };
  assert.equal(
    reconnectDelay(1, jittered, () => 0),
    80,
  );
  assert.equal(
    reconnectDelay(1, jittered, () => 1),
    120,
  );
  assert.equal(
    reconnectDelay(1, jittered, () => 0.5),
    100,
  );
});

test('a crash mid-request rejects it with the exit status, then the client restarts and serves the next', async () => {
  const { client, events } = fixtureClient([]);
  await client.connect();
  const firstPid = client.pid!;
  const started = performance.now();
  await assert.rejects(
    client.callTool({ name: 'crash', arguments: { code: 5 } }),
    (error) =>
      error instanceof ConnectionClosedError &&
      error.reason.type === 'exit_status' &&
      error.reason.status === 5,
  );
  assert.ok(performance.now() - started < 2000, 'rejected promptly');
  const result = await client.callTool({ name: 'echo', arguments: { again: true } });
  assert.deepEqual(result.content, [{ type: 'text', text: '{"again":true}' }]);
  assert.notEqual(client.pid, firstPid, 'a new process serves it');
  assert.equal(isRunning(firstPid), false);
  assert.deepEqual(
    events.map(([name]) => name),
    ['ready', 'disconnected', 'reconnecting', 'ready'],
  );
  assert.deepEqual(events[1]![1], { type: 'exit_status', status: 5, signal: null });
  const { error, ...reconnecting } = events[2]![1] as { error: unknown; attempt: number; delay: number };
  assert.deepEqual(reconnecting, { attempt: 1, delay: 50 });
  // The event names what made the attempt necessary: here the lost connection.
  assert.ok(error instanceof ConnectionClosedError);
  assert.deepEqual(error.reason, { type: 'exit_status', status: 5, signal: null });
  await client.close();
  assert.equal(client.state, 'closed');
});

test('a crash loop exhausts maxReconnects: growing delays, then closed with the last reason', async () => {
  const { client, events } = fixtureClient(['--exit-after-ready', '30'], {
    reconnect: { initialDelay: 40, maxDelay: 1000, jitter: 0, maxReconnects: 3, resetAfter: 60_000 },
  });
  await client.connect();
  await once(client, 'closed', { signal: AbortSignal.timeout(15_000) });
  assert.equal(client.state, 'closed');
  assert.deepEqual(
    events.map(([name]) => name),
    [
      'ready',
      'disconnected',
      'reconnecting',
      'ready',
      'disconnected',
      'reconnecting',
      'ready',
      'disconnected',
      'reconnecting',
      'ready',
      'disconnected',
      'closed',
    ],
  );
  const reconnects = events.filter(([name]) => name === 'reconnecting').map(([, event]) => event);
  for (const event of reconnects)
    assert.ok((event as { error: unknown }).error instanceof ConnectionClosedError);
  const delays = reconnects.map((event) => {
    const { attempt, delay } = event as { attempt: number; delay: number };
    return { attempt, delay };
  });
  assert.deepEqual(delays, [
    { attempt: 1, delay: 40 },
    { attempt: 2, delay: 80 },
    { attempt: 3, delay: 160 },
  ]);
  assert.deepEqual(events.at(-1)![1], { type: 'exit_status', status: 1, signal: null });
  await assert.rejects(client.request('ping'), ClientClosedError);
});

test('a server that dies at every start: connect() rejects once the policy gives up', async () => {
  const { client, events } = fixtureClient(['--exit-at-start', '3'], { protocol: 'legacy' });
  await assert.rejects(
    client.connect(),
    (error) =>
      error instanceof ConnectionClosedError &&
      error.reason.type === 'exit_status' &&
      error.reason.status === 3,
  );
  assert.deepEqual(
    events.map(([name]) => name),
    ['reconnecting', 'reconnecting', 'reconnecting', 'closed'],
  );
  assert.equal(client.state, 'closed');
});

test('a missing executable is not retried: connect() rejects at once', async () => {
  const client = new Client({
    name: 'missing',
    transport: { type: 'stdio', command: 'conduit-no-such-server-4711' },
  });
  const reconnects: unknown[] = [];
  client.on('reconnecting', (event) => reconnects.push(event));
  const started = performance.now();
  await assert.rejects(
    client.connect(),
    (error) =>
      error instanceof SpawnError && /conduit-no-such-server-4711 was not found in PATH=/.test(error.message),
  );
  assert.ok(performance.now() - started < 1000);
  assert.deepEqual(reconnects, []);
  assert.equal(client.state, 'closed');
});

test('invalid configuration throws ConfigError at construction, naming the key', () => {
  assert.throws(
    () => new Client({ name: 'x', transport: { type: 'stdio', command: 'npx -y server' } }),
    (error) =>
      error instanceof ConfigError && error.key === 'transport.command' && /args/.test(error.message),
  );
  assert.throws(
    () =>
      new Client({
        name: 'x',
        transport: { type: 'stdio', command: 'node' },
        reconnect: { maxReconnects: -1 },
      }),
    (error) => error instanceof ConfigError && error.key === 'reconnect.maxReconnects',
  );
  assert.throws(
    () => new Client({ name: 'x', transport: { type: 'stdio', command: 'node' }, requestTimeot: 5 } as never),
    (error) =>
      error instanceof ConfigError && error.key === 'requestTimeot' && /requestTimeout/.test(error.message),
  );
});

test('requests made while reconnecting wait for the new process, within their own timeout', async () => {
  const { client } = fixtureClient([], {
    reconnect: { initialDelay: 300, maxDelay: 1000, jitter: 0, maxReconnects: 3 },
  });
  await client.connect();
  const crash = client.callTool({ name: 'crash' }).catch(() => 'crashed');
  await once(client, 'disconnected', { signal: AbortSignal.timeout(15_000) });
  assert.equal(client.state, 'reconnecting');
  const waiting = client.callTool({ name: 'echo', arguments: { waited: 1 } });
  const tooShort = client.callTool({ name: 'echo' }, { timeout: 50 });
  await assert.rejects(tooShort, RequestTimeoutError);
  assert.deepEqual((await waiting).content, [{ type: 'text', text: '{"waited":1}' }]);
  assert.equal(await crash, 'crashed');
  await client.close();
});

test('close() stops everything: in-flight requests reject, no restart follows', async () => {
  const { client, events } = fixtureClient([]);
  await client.connect();
  const pid = client.pid!;
  const inFlight = client.callTool({ name: 'slow', arguments: { steps: 50 } });
  await client.close();
  await assert.rejects(inFlight, ConnectionClosedError);
  await assert.rejects(client.request('ping'), ClientClosedError);
  await assert.rejects(client.connect(), ClientClosedError);
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.deepEqual(
    events.map(([name]) => name),
    ['ready', 'closed'],
  );
  assert.equal(events[1]![1], undefined);
  assert.equal(isRunning(pid), false);
});

test('a script that makes 10,000 requests and closes its client exits by itself', async () => {
  const { code, signal, stdout, stderr } = await runHost('many-requests.ts');
  assert.equal(signal, null, 'the host exited on its own, it was not killed');
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as { done: number; listeners: number; serverPid: number };
  assert.equal(report.done, 10_000);
  assert.equal(report.listeners, 0);
  assert.equal(isRunning(report.serverPid), false);
});
