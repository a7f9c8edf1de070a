// Edges of era detection over stdio, against a real server process, each checked on what the
// server read: -32022 re-probed with the version it names, server requests held during the probe
// (answered once legacy, never once modern), and `initialize` never cancelled (spec: the client
// MUST NOT cancel initialize; a timed-out one is abandoned, the process restarted).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type ClientOptions, RequestTimeoutError } from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { waitFor } from '../helpers/wait.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

function probeClient(args: string[], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'edges',
    transport: {
      type: 'stdio',
      ...nodeServer('era-probe.mjs', ['--record', record.file, ...args], {
        stderr: 'discard',
        stdinGrace: 300,
      }),
    },
    probeTimeout: 2000,
    reconnect: { maxReconnects: 0 },
    ...extra,
  });
  clients.push(client);
  /** What the server read: each request's method, a response as `response <id>`. */
  const lines = () => record.read().map((message) => message.method ?? `response ${String(message.id)}`);
  return { client, record, lines };
}

test('-32022 to the probe: server/discover again with the version it names, modern, no initialize', async () => {
  const { client, record, lines } = probeClient(['--era', 'modern', '--refuse-first-discover']);
  await client.connect();
  assert.equal(client.era, 'modern');
  assert.equal(client.protocolVersion, '2026-07-28');
  const discovers = record.read().filter((message) => message.method === 'server/discover');
  assert.equal(discovers.length, 2);
  const version = (message: Record<string, unknown>) =>
    (message.params as { _meta: Record<string, unknown> })._meta[META_VERSION];
  assert.equal(version(discovers[1]!), '2026-07-28', 'the retry carries the version the error named');
  await client.request('tools/list');
  assert.ok(!lines().includes('initialize'), 'no fallback to initialize');
});

test('-32022 to initialize: the server is modern after all, re-probed with the version it names', async () => {
  const { client, record, lines } = probeClient(['--era', 'modern', '--init-unsupported'], {
    protocol: 'legacy',
  });
  await client.connect();
  assert.equal(client.era, 'modern');
  assert.deepEqual(lines().slice(0, 2), ['initialize', 'server/discover']);
  const discover = record.read().find((message) => message.method === 'server/discover')!;
  assert.equal((discover.params as { _meta: Record<string, unknown> })._meta[META_VERSION], '2026-07-28');
});

test('legacy: a request the server sent during the probe is held, then answered after the handshake', async () => {
  const { client, record, lines } = probeClient(['--era', 'legacy', '--ping-during-probe']);
  await client.connect();
  assert.equal(client.era, 'legacy');
  const answer = await record.waitFor((message) => message.id === 'probe-ping' && !('method' in message));
  assert.deepEqual(answer, { jsonrpc: '2.0', id: 'probe-ping', result: {} });
  const order = lines();
  assert.deepEqual(
    order.slice(0, 4),
    ['server/discover', 'initialize', 'notifications/initialized', 'response probe-ping'],
    'held while the era was unknown, answered once legacy',
  );
  assert.equal(order.filter((line) => line === 'response probe-ping').length, 1);
});

test('modern: a request the server sent during the probe is never answered', async () => {
  const { client, lines } = probeClient(['--era', 'modern', '--ping-during-probe']);
  await client.connect();
  assert.equal(client.era, 'modern');
  await client.request('tools/list');
  await sleep(200);
  assert.deepEqual(lines(), ['server/discover', 'tools/list'], 'nothing but our requests was written');
});

/** Connects to a server that never answers initialize, expecting the handshake to time out. */
async function initializeTimesOut(args: string[], extra: Partial<ClientOptions>) {
  const { client, lines } = probeClient(['--era', 'legacy', '--init-silent', ...args], {
    requestTimeout: 300,
    ...extra,
  });
  await assert.rejects(client.connect(), RequestTimeoutError);
  await client.close();
  await sleep(300); // the server reads what was written before its stdin closed
  return lines();
}

test('initialize is never cancelled: a timed-out initialize gets no notifications/cancelled', async () => {
  // Control: the same server and record do show a cancellation for a request that may be cancelled.
  const control = probeClient(['--era', 'legacy']);
  await control.client.connect();
  await assert.rejects(control.client.request('never', {}, { timeout: 100 }), RequestTimeoutError);
  await waitFor(() => control.lines().includes('notifications/cancelled'), 'the control cancellation');

  const direct = await initializeTimesOut([], { protocol: 'legacy' });
  assert.deepEqual(direct, ['initialize'], 'protocol legacy: initialize only');
  const afterProbe = await initializeTimesOut(['--ping-during-probe'], {});
  assert.deepEqual(afterProbe.slice(0, 2), ['server/discover', 'initialize']);
  assert.ok(!afterProbe.includes('notifications/cancelled'), afterProbe.join(', '));
  const afterSilentProbe = await initializeTimesOut(['--silent-discover'], { probeTimeout: 100 });
  assert.deepEqual(afterSilentProbe, ['server/discover', 'initialize'], 'probe timed out, then initialize');
});
