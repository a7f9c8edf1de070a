import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '../../src/client/client.js';
import { classifyProbe } from '../../src/client/eras/discovery.js';
import type { ClientOptions } from '../../src/client/options.js';
import { McpError, ProtocolError, UnsupportedProtocolVersionError } from '../../src/errors.js';
import { nodeServer, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { validateMessage } from '../helpers/schema.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;
const MODERN_KEYS = [
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/clientInfo',
];

const spawns: number[] = [];
dc.subscribe('conduit-mcp:transport:spawn', (message) => spawns.push((message as { pid: number }).pid));

function fixtureClient(args: string[], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'fixture',
    transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--record', record.file, ...args], QUICK) },
    probeTimeout: 1000,
    reconnect: { initialDelay: 20, maxDelay: 100, jitter: 0, maxReconnects: 2 },
    ...extra,
  });
  clients.push(client);
  const names = () => record.read().map((message) => message.method ?? `response ${message.id}`);
  /** The methods recorded once the server has read at least `count` lines (it records as it reads). */
  const methods = async (count: number) => {
    const deadline = Date.now() + 3000;
    while (names().length < count && Date.now() < deadline) await sleep(20);
    await sleep(50);
    return names();
  };
  return { client, record, methods };
}

/** Connect time, in ms, and the client. */
async function timedConnect(client: Client) {
  const started = performance.now();
  await client.connect();
  return performance.now() - started;
}

test('the probe is classified without keying the fallback to one error code', () => {
  const discover = { supportedVersions: ['2026-07-28'], capabilities: {} };
  assert.equal(classifyProbe({ result: discover }, '2026-07-28').kind, 'modern');
  for (const code of [-32601, -32602, -32600, -32603, -32000, -32004]) {
    assert.equal(
      classifyProbe({ error: new McpError(code, 'no') }, '2026-07-28').kind,
      'legacy',
      `code ${code}`,
    );
  }
  assert.deepEqual(
    classifyProbe(
      { error: new McpError(-32022, 'no', { supported: ['2025-11-25'], requested: 'x' }) },
      '2026-07-28',
    ),
    { kind: 'legacy', version: '2025-11-25', why: '-32022 offered only legacy versions' },
  );
  assert.deepEqual(
    classifyProbe({ error: new McpError(-32022, 'no', { supported: ['2099-01-01'] }) }, '2026-07-28'),
    { kind: 'unsupported', supported: ['2099-01-01'], requested: '2026-07-28' },
  );
  assert.equal(
    classifyProbe({ error: new McpError(-32022, 'no') }, '2026-07-28').kind,
    'legacy',
    '-32022 without a list',
  );
  assert.equal(classifyProbe({ result: { nothing: true } }, '2026-07-28').kind, 'legacy');
});

test('a modern server: discover first, then every request carries the modern _meta; no initialize', async () => {
  const { client, record, methods } = fixtureClient(['--era', 'modern']);
  await client.connect();
  assert.equal(client.era, 'modern');
  assert.equal(client.protocolVersion, '2026-07-28');
  assert.deepEqual(client.serverInfo, { name: 'fixture-mcp', version: '1.0.0' });
  assert.equal(client.instructions, 'Fixture instructions.');
  await client.request('tools/call', { name: 'echo', arguments: {}, _meta: { 'com.example/trace': 'abc' } });
  assert.deepEqual(await methods(2), ['server/discover', 'tools/call']);
  const [probe, call] = record.read();
  validateMessage(probe, 'modern', 'DiscoverRequest');
  validateMessage(call, 'modern', 'CallToolRequest');
  const meta = (call!.params as { _meta: Record<string, unknown> })._meta;
  assert.deepEqual(Object.keys(meta).sort(), ['com.example/trace', ...MODERN_KEYS].sort());
  assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], { name: 'conduit-mcp', version: '0.1.0' });
  await client.close();
});

test('a dual-era server is spoken to in the modern era', async () => {
  const { client, methods } = fixtureClient(['--era', 'dual']);
  await client.connect();
  assert.equal(client.era, 'modern');
  assert.deepEqual(await methods(1), ['server/discover']);
  await client.close();
});

test('a legacy server answering -32601: initialize, initialized, and plain requests', async () => {
  const { client, record, methods } = fixtureClient(['--era', 'legacy']);
  await client.connect();
  assert.equal(client.era, 'legacy');
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverCapabilities?.tools, { listChanged: true });
  await client.callTool({ name: 'echo', arguments: { a: 1 } });
  assert.deepEqual(await methods(4), [
    'server/discover',
    'initialize',
    'notifications/initialized',
    'tools/call',
  ]);
  const [, initialize, initialized, call] = record.read();
  validateMessage(initialize, 'legacy', 'InitializeRequest');
  validateMessage(initialized, 'legacy', 'InitializedNotification');
  validateMessage(call, 'legacy', 'CallToolRequest');
  assert.deepEqual((initialize!.params as Record<string, unknown>).clientInfo, {
    name: 'conduit-mcp',
    version: '0.1.0',
  });
  assert.equal((call!.params as { _meta?: unknown })._meta, undefined, 'no modern keys on legacy requests');
  await client.close();
});

test('a legacy server answering -32602 to the probe is legacy too', async () => {
  const { client } = fixtureClient(['--era', 'legacy', '--probe', 'invalid']);
  await client.connect();
  assert.equal(client.era, 'legacy');
  await client.close();
});

test('a legacy server silent on unknown methods: legacy after probeTimeout, nothing cancelled on the wire', async () => {
  const { client, methods } = fixtureClient(['--era', 'legacy', '--probe', 'silent'], { probeTimeout: 600 });
  const elapsed = await timedConnect(client);
  assert.equal(client.era, 'legacy');
  assert.ok(elapsed >= 590 && elapsed < 600 + 2500, `connected after ${elapsed} ms`);
  assert.deepEqual(await methods(3), ['server/discover', 'initialize', 'notifications/initialized']);
  await client.close();
});

test('-32022 listing only legacy versions: the legacy handshake with the best of them', async () => {
  const { client, methods } = fixtureClient(['--era', 'dual', '--unsupported-legacy']);
  await client.connect();
  assert.equal(client.era, 'legacy');
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(await methods(3), ['server/discover', 'initialize', 'notifications/initialized']);
  await client.close();
});

test('-32022 listing only modern versions we do not implement: a clear error, no retries', async () => {
  const { client, methods } = fixtureClient(['--era', 'modern', '--versions', '2099-01-01']);
  const reconnects: unknown[] = [];
  client.on('reconnecting', (event) => reconnects.push(event));
  await assert.rejects(
    client.connect(),
    (error) =>
      error instanceof UnsupportedProtocolVersionError &&
      error.requested === '2026-07-28' &&
      error.supported.includes('2099-01-01') &&
      /2026-07-28/.test(error.message) &&
      /2099-01-01/.test(error.message),
  );
  assert.deepEqual(reconnects, []);
  assert.deepEqual(await methods(1), ['server/discover']);
});

test('initialize answered with a version we do not implement: a clear error naming both', async () => {
  const { client } = fixtureClient(['--era', 'legacy', '--init-version', '1999-01-01']);
  await assert.rejects(
    client.connect(),
    (error) =>
      error instanceof UnsupportedProtocolVersionError &&
      /1999-01-01/.test(error.message) &&
      /2025-11-25/.test(error.message),
  );
  assert.equal(client.state, 'closed');
});

test('a slow-starting modern server that answers the probe after the timeout is adopted as modern', async () => {
  // The default stdio probeTimeout (3 s) and a server that reads nothing for 4 s. It is modern-only:
  // a dual-era server would accept the initialize sent behind the probe and so be legacy.
  const { client, methods } = fixtureClient(['--era', 'modern', '--start-delay', '4000'], {
    probeTimeout: 3000,
  });
  const before = spawns.length;
  const elapsed = await timedConnect(client);
  assert.equal(client.era, 'modern');
  assert.ok(elapsed >= 3900, `connected after ${elapsed} ms`);
  assert.equal(spawns.length - before, 1, 'no second process was started');
  assert.deepEqual(
    await methods(2),
    ['server/discover', 'initialize'],
    'initialize was sent, never cancelled',
  );
  await client.request('tools/list');
  await client.close();
});

test('a modern-only server whose late DiscoverResult follows the refused initialize is modern', async () => {
  const { client } = fixtureClient(['--era', 'modern', '--discover-delay', '900'], { probeTimeout: 500 });
  await client.connect();
  assert.equal(client.era, 'modern');
  await client.close();
});

test('a server that exits on the probe is restarted straight into initialize', async () => {
  const { client, methods } = fixtureClient(['--era', 'legacy', '--probe', 'exit']);
  const reconnects: unknown[] = [];
  client.on('reconnecting', (event) => reconnects.push(event));
  await client.connect();
  assert.equal(client.era, 'legacy');
  assert.deepEqual(await methods(3), ['server/discover', 'initialize', 'notifications/initialized']);
  assert.deepEqual(reconnects, [], 'the restart is part of the era detection, not a reconnect');
  await client.close();
});

test('across a restart a remembered legacy era is not probed again; a remembered modern era is confirmed by one server/discover', async () => {
  for (const era of ['legacy', 'modern'] as const) {
    const { client, methods } = fixtureClient(['--era', era]);
    await client.connect();
    await client.callTool({ name: 'crash' }).catch(() => {});
    await client.callTool({ name: 'echo' });
    assert.equal(client.era, era);
    const handshakes = (await methods(1)).filter(
      (method) => method === 'server/discover' || method === 'initialize',
    );
    assert.deepEqual(
      handshakes,
      era === 'legacy'
        ? ['server/discover', 'initialize', 'initialize']
        : ['server/discover', 'server/discover'],
      `${era}: the handshakes of both processes`,
    );
    await client.close();
  }
});

test('a remembered era that turns out wrong is probed again', async () => {
  const eraFile = path.join(temporaryDirectory(), 'era');
  writeFileSync(eraFile, 'legacy');
  const { client, methods } = fixtureClient(['--era-file', eraFile]);
  await client.connect();
  assert.equal(client.era, 'legacy');
  writeFileSync(eraFile, 'modern');
  await client.callTool({ name: 'crash' }).catch(() => {});
  await client.callTool({ name: 'echo' });
  assert.equal(client.era, 'modern');
  assert.deepEqual(
    (await methods(6)).filter((method) => method === 'server/discover' || method === 'initialize'),
    ['server/discover', 'initialize', 'initialize', 'server/discover'],
  );
  await client.close();
});

test("protocol: 'legacy' and 'modern' skip the probe", async () => {
  const legacy = fixtureClient(['--era', 'dual'], { protocol: 'legacy' });
  await legacy.client.connect();
  assert.equal(legacy.client.era, 'legacy');
  assert.deepEqual(await legacy.methods(2), ['initialize', 'notifications/initialized']);
  await legacy.client.close();
  const modern = fixtureClient(['--era', 'dual'], { protocol: 'modern' });
  await modern.client.connect();
  assert.equal(modern.client.era, 'modern');
  assert.deepEqual(await modern.methods(1), ['server/discover']);
  await modern.client.close();
});

test('modern input_required: handlers answer, the retry has a new id, the answers and the untouched state', async () => {
  const asked: unknown[] = [];
  const { client, record } = fixtureClient(['--era', 'modern'], {
    handlers: {
      elicitation: async (params, context) => {
        asked.push({ params, server: context.server });
        return { action: 'accept', content: { ok: true } };
      },
    },
  });
  await client.connect();
  const result = await client.callTool({ name: 'ask', arguments: { x: 1 } });
  assert.deepEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), {
    answers: { confirm: { action: 'accept', content: { ok: true } } },
    state: 'state-1',
  });
  assert.equal(asked.length, 1);
  assert.equal((asked[0] as { server: string }).server, 'fixture');
  const calls = record.read().filter((message) => message.method === 'tools/call');
  assert.equal(calls.length, 2);
  assert.notEqual(calls[0]!.id, calls[1]!.id);
  const retry = calls[1]!.params as Record<string, unknown>;
  assert.deepEqual(retry.inputResponses, { confirm: { action: 'accept', content: { ok: true } } });
  assert.equal(retry.requestState, 'state-1');
  assert.deepEqual(retry.arguments, { x: 1 });
  for (const call of calls) validateMessage(call, 'modern', 'CallToolRequest');
  const capabilities = (retry._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities'];
  assert.deepEqual(capabilities, {
    elicitation: { form: {} },
    extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
  });
  await client.close();
});

test('modern input_required without a handler fails with a clear error, not a hang', async () => {
  const { client } = fixtureClient(['--era', 'modern']);
  await client.connect();
  await assert.rejects(
    client.callTool({ name: 'ask' }, { timeout: 5000 }),
    (error) =>
      error instanceof ProtocolError &&
      /elicitation\/create/.test(error.message) &&
      /handlers\.elicitation/.test(error.message),
  );
  await client.close();
});

test('legacy server requests are answered through the handlers; unknown ones get -32601; id 0 works', async () => {
  const { client, record } = fixtureClient(['--era', 'legacy', '--ask-roots', '--ping-client'], {
    handlers: { roots: async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }) },
  });
  const logs: unknown[] = [];
  client.on('log', (params) => logs.push(params));
  await client.connect();
  const rootsAnswer = await record.waitFor((message) => message.id === 0 && 'result' in message);
  assert.deepEqual(rootsAnswer, {
    jsonrpc: '2.0',
    id: 0,
    result: { roots: [{ uri: 'file:///work', name: 'work' }] },
  });
  validateMessage(rootsAnswer, 'legacy', 'JSONRPCResultResponse');
  validateMessage(rootsAnswer.result, 'legacy', 'ListRootsResult');
  const pingAnswer = await record.waitFor((message) => message.id === 'srv-ping');
  assert.deepEqual(pingAnswer, { jsonrpc: '2.0', id: 'srv-ping', result: {} });
  await client.callTool({ name: 'ask' }).catch(() => {});
  const elicitAnswer = await record.waitFor((message) => message.id === 1 && 'error' in message);
  assert.equal((elicitAnswer.error as { code: number }).code, -32601);
  validateMessage(elicitAnswer, 'legacy', 'JSONRPCErrorResponse');
  await client.close();
});

test('a modern server that sends a request gets no answer: a modern client never writes a response', async () => {
  const { client, record } = fixtureClient(['--era', 'modern', '--ping-client']);
  await client.connect();
  await client.request('tools/list');
  await sleep(200);
  assert.equal(
    record.read().filter((message) => !('method' in message)).length,
    0,
    'nothing but requests and notifications was written',
  );
  await client.close();
});
