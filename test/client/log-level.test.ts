// setLogLevel: its argument checked first (UsageError, as any call-time misuse), applied through
// the session, nothing changed when it fails, and a server without `logging` is a warning, as
// for the logLevel option.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CapabilityError,
  Client,
  type ClientOptions,
  type ClientWarning,
  McpError,
  UsageError,
} from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { waitFor } from '../helpers/wait.js';

const QUICK = { stdinGrace: 200, termGrace: 200, stderr: 'discard' } as const;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

function fixtureClient(args: string[], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'logs',
    transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--record', record.file, ...args], QUICK) },
    reconnect: { initialDelay: 10, maxDelay: 50, jitter: 0, maxReconnects: 3 },
    ...extra,
  });
  clients.push(client);
  const warnings: ClientWarning[] = [];
  client.on('warning', (warning) => warnings.push(warning));
  const sent = (method: string) => record.read().filter((message) => message.method === method);
  /** The level the last tools/call carried in its _meta (modern). */
  const levelOfLastCall = () =>
    (sent('tools/call').at(-1)?.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[
      'io.modelcontextprotocol/logLevel'
    ];
  return { client, record, warnings, sent, levelOfLastCall };
}

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a level that is not one is a UsageError naming the levels; nothing is sent and the level stays`, async () => {
    const { client, sent, levelOfLastCall } = fixtureClient(['--era', era], { logLevel: 'info' });
    await client.connect();
    if (era === 'legacy') await waitFor(() => sent('logging/setLevel').length === 1, 'the option level');
    const setLevels = sent('logging/setLevel').length;
    for (const wrong of ['loud', 42, undefined]) {
      await assert.rejects(
        client.setLogLevel(wrong as never),
        (error) =>
          error instanceof UsageError &&
          error.server === 'logs' &&
          /^logs: setLogLevel: the level must be one of debug, info, notice, warning, error, critical, alert, emergency, got /.test(
            error.message,
          ),
      );
    }
    await client.callTool({ name: 'echo', arguments: {} });
    await sleep(50);
    assert.equal(sent('logging/setLevel').length, setLevels, 'no logging/setLevel was sent');
    if (era === 'modern') assert.equal(levelOfLastCall(), 'info', 'the level is still the one set before');
  });
}

test('legacy: a level the server refuses rejects with its error and changes nothing: a restart sends the old level', async () => {
  const { client, sent, warnings } = fixtureClient(['--era', 'legacy', '--refuse-set-level'], {
    logLevel: 'info',
  });
  await client.connect();
  await waitFor(() => sent('logging/setLevel').length === 1, 'the option level at the handshake');
  await assert.rejects(
    client.setLogLevel('debug'),
    (error) => error instanceof McpError && error.server === 'logs' && error.code === -32601,
  );
  assert.deepEqual(
    sent('logging/setLevel').map((message) => (message.params as { level: string }).level),
    ['info', 'debug'],
  );
  await client.callTool({ name: 'crash' }).catch(() => {});
  await client.callTool({ name: 'echo', arguments: {} });
  await waitFor(() => sent('logging/setLevel').length === 3, 'the level sent after the restart');
  assert.equal((sent('logging/setLevel')[2]!.params as { level: string }).level, 'info');
  assert.ok(warnings.every((warning) => warning.type === 'log_level_refused'));
});

test('legacy: setLogLevel goes through the session with the call options, and the level holds after a restart', async () => {
  const { client, sent } = fixtureClient(['--era', 'legacy']);
  await client.connect();
  await client.setLogLevel('warning', { timeout: 5000 });
  assert.deepEqual(sent('logging/setLevel').at(-1)?.params, { level: 'warning' });
  await assert.rejects(
    client.setLogLevel('debug', { timeout: -1 }),
    (error) => error instanceof UsageError && /options\.timeout/.test(error.message),
  );
  await client.callTool({ name: 'crash' }).catch(() => {});
  await client.callTool({ name: 'echo', arguments: {} });
  await waitFor(() => sent('logging/setLevel').length === 2, 'the level sent after the restart');
  assert.deepEqual(sent('logging/setLevel').at(-1)?.params, { level: 'warning' });
});

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a server without logging: setLogLevel and the logLevel option alike are a warning, nothing sent`, async () => {
    const option = fixtureClient(['--era', era, '--without', 'logging'], { logLevel: 'info' });
    await option.client.connect();
    await waitFor(() => option.warnings.length === 1, 'the warning of the option');
    const { client, sent, warnings, levelOfLastCall } = fixtureClient(['--era', era, '--without', 'logging']);
    await client.connect();
    await client.setLogLevel('notice');
    for (const [warning, level] of [
      [option.warnings[0], 'info'],
      [warnings[0], 'notice'],
    ] as const) {
      assert.equal(warning?.type, 'log_level_unsupported');
      assert.equal(
        warning?.message,
        `logs: the server does not declare the logging capability; log level ${level} not applied`,
      );
      assert.ok(warning?.error instanceof CapabilityError);
      assert.equal(warning.error.server, 'logs');
    }
    assert.equal(warnings.length, 1);
    await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(sent('logging/setLevel').length, 0);
    assert.equal(option.sent('logging/setLevel').length, 0);
    if (era === 'modern') assert.equal(levelOfLastCall(), 'notice');
    assert.equal(client.state, 'ready');
  });
}

test('before connect the level waits for the handshake; on a closed client setLogLevel rejects', async () => {
  const { client, sent } = fixtureClient(['--era', 'legacy']);
  await client.setLogLevel('error');
  await client.connect();
  await waitFor(() => sent('logging/setLevel').length === 1, 'the level at the handshake');
  assert.deepEqual(sent('logging/setLevel')[0]!.params, { level: 'error' });
  await client.close();
  await assert.rejects(client.setLogLevel('debug'), { name: 'ClientClosedError' });
});
