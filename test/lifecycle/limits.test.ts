// Guarantees 3-10 of the lifecycle: durations are checked, connecting has a deadline and close()
// ends it, causes are kept, optional steps never fail a connection, a remembered era is
// checked, what a server can make the client hold is bounded, listen streams recover, and ids are
// the client's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  Client,
  ClientClosedError,
  type ClientWarning,
  ConfigError,
  ConnectionClosedError,
  ConnectTimeoutError,
  McpError,
  Secret,
  UnsupportedProtocolVersionError,
  UsageError,
} from '../../src/index.js';
import { nodeServer, temporaryDirectory } from '../helpers/fixtures.js';
import { mcpClient, QUICK, responsesIn } from '../helpers/lifecycle.js';
import { guardProcesses } from '../helpers/processes.js';
import { textOf, waitFor } from '../helpers/wait.js';

guardProcesses();

const legacyTransport = { type: 'stdio' as const, ...nodeServer('mcp.mjs', ['--era', 'legacy'], QUICK) };

test('every duration option is refused unless a whole number of ms a Node timer can hold, naming the key', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['requestTimeout', { requestTimeout: 2 ** 31 }],
    ['requestTimeout', { requestTimeout: 0 }],
    ['probeTimeout', { probeTimeout: -1 }],
    ['connectTimeout', { connectTimeout: '1000' }],
    ['connectTimeout', { connectTimeout: Number.POSITIVE_INFINITY }],
    ['reconnect.initialDelay', { reconnect: { initialDelay: Number.NaN } }],
    ['reconnect.maxDelay', { reconnect: { maxDelay: 2 ** 40 } }],
    ['reconnect.resetAfter', { reconnect: { resetAfter: 1.5 } }],
    ['transport.stdinGrace', { transport: { ...legacyTransport, stdinGrace: 2 ** 31 } }],
    ['transport.termGrace', { transport: { ...legacyTransport, termGrace: -5 } }],
  ];
  for (const [key, extra] of cases) {
    assert.throws(
      () => new Client({ name: 'd', transport: legacyTransport, ...extra } as never),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.key === key &&
        error.message.startsWith(`${key} must be a whole number of milliseconds from`) &&
        error.message.includes('2147483647'),
      `${key} ${JSON.stringify(extra)}`,
    );
  }
  // The largest a timer holds is fine.
  new Client({
    name: 'd',
    transport: legacyTransport,
    requestTimeout: 2 ** 31 - 1,
    connectTimeout: 2 ** 31 - 1,
  });
});

test('RequestOptions are checked at the call with UsageError naming the key; nothing is sent', async () => {
  const { client, record } = mcpClient(['--era', 'legacy']);
  await client.connect();
  // connect() resolves once notifications/initialized is written, not once the server has read it.
  await record.waitFor((message) => message.method === 'notifications/initialized');
  const before = record.read().length;
  const cases: Array<[string, Record<string, unknown>]> = [
    ['options.timeout', { timeout: Number.POSITIVE_INFINITY }],
    ['options.timeout', { timeout: '100' }],
    ['options.timeout', { timeout: 2 ** 31 }],
    ['options.maxTotalTimeout', { maxTotalTimeout: Number.NaN }],
    ['options.signal', { signal: 'abort' }],
    ['options.onProgress', { onProgress: 1 }],
    ['options.resetTimeoutOnProgress', { resetTimeoutOnProgress: 'yes' }],
    ['options.id', { id: 1 }],
  ];
  for (const [key, options] of cases) {
    for (const call of [
      () => client.callTool({ name: 'echo' }, options as never),
      () => client.request('ping', undefined, options as never),
      () => client.listTools(undefined, options as never),
      () => client.subscribeResource('file:///a.txt', options as never),
    ]) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, new RegExp(`^fixture: [a-z/]+: ${key.replace('.', '\\.')} `));
        return true;
      });
    }
  }
  assert.equal(record.read().length, before, 'nothing was written');
});

test('requestTimeout at the timer limit lets a request made while connecting wait, not fail after 1 ms', async () => {
  const { client } = mcpClient(['--era', 'legacy', '--start-delay', '300'], { requestTimeout: 2 ** 31 - 1 });
  const connecting = client.connect();
  const result = await client.callTool({ name: 'echo', arguments: { waited: true } });
  assert.equal(textOf(result), '{"waited":true}');
  await connecting;
});

test('connectTimeout: a Secret that never resolves fails the attempt like any other, retried, then connect() rejects', async () => {
  const { client, count } = mcpClient([], {
    transport: {
      ...legacyTransport,
      env: { TOKEN: new Secret(() => new Promise<string>(() => {})) },
    },
    connectTimeout: 200,
    reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 },
  });
  const started = Date.now();
  const error = await client.connect().then(
    () => assert.fail('connect() resolved'),
    (reason: unknown) => reason as Error,
  );
  assert.ok(error instanceof ConnectTimeoutError, String(error));
  assert.equal(error.timeout, 200);
  assert.match(
    error.message,
    /^fixture: the connection attempt did not finish within 200 ms \(connectTimeout\)/,
  );
  assert.equal(count('reconnecting'), 1, 'retried once under reconnect');
  assert.ok(Date.now() - started < 5000);
  assert.equal(client.state, 'closed');
});

test('connectTimeout: a server that never answers the handshake is stopped and the attempt retried', async () => {
  const { client, count } = mcpClient(['--era', 'legacy', '--start-delay', '60000'], {
    protocol: 'legacy',
    connectTimeout: 300,
    reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 },
  });
  await assert.rejects(client.connect(), ConnectTimeoutError);
  assert.equal(count('reconnecting'), 1);
  // The guard checks after the test that no server process survived.
});

test('close() settles a pending connect() and every request waiting for ready, at once', async () => {
  const { client } = mcpClient([], {
    transport: { ...legacyTransport, env: { TOKEN: new Secret(() => new Promise<string>(() => {})) } },
  });
  const connecting = client.connect();
  const waiting = client.callTool({ name: 'echo' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  await client.close();
  await assert.rejects(connecting, ClientClosedError);
  await assert.rejects(waiting, ClientClosedError);
  assert.ok(Date.now() - started < 1000, `settled after ${Date.now() - started} ms`);
});

test('causes are kept: after a crash loop the exit status is the reason and cause of every later error and of closed', async () => {
  const { client, events } = mcpClient(['--era', 'legacy', '--exit-after-ready', '0'], {
    reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0, resetAfter: 60_000 },
  });
  await client.connect().catch(() => {});
  await waitFor(() => client.state === 'closed', 'giving up');
  const closed = events.find(([name]) => name === 'closed')?.[1] as { type: string; status?: number };
  assert.deepEqual(closed, { type: 'exit_status', status: 1, signal: null });
  const error = await client.callTool({ name: 'echo' }).then(
    () => assert.fail('resolved'),
    (reason: unknown) => reason as ClientClosedError,
  );
  assert.ok(error instanceof ClientClosedError);
  assert.deepEqual(error.reason, closed);
  assert.ok(error.cause instanceof ConnectionClosedError, String(error.cause));
  assert.deepEqual((error.cause as ConnectionClosedError).reason, closed);
  await assert.rejects(client.connect(), (again: unknown) => (again as Error).cause === error.cause);
});

test('causes are kept: a refused handshake is the reason (connect_failed) and cause of closed and later errors', async () => {
  const { client, events } = mcpClient(['--era', 'legacy', '--init-error=-32603'], {
    protocol: 'legacy',
    reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 },
  });
  const first = await client.connect().then(
    () => assert.fail('resolved'),
    (reason: unknown) => reason as Error,
  );
  assert.ok(first instanceof McpError);
  const closed = events.find(([name]) => name === 'closed')?.[1] as { type: string; error: Error };
  assert.equal(closed.type, 'connect_failed');
  assert.equal(closed.error, first);
  const later = await client.request('ping').then(
    () => assert.fail('resolved'),
    (reason: unknown) => reason as ClientClosedError,
  );
  assert.ok(later instanceof ClientClosedError);
  assert.equal(later.cause, first);
  assert.match(later.message, /last close: the connection attempt failed: fixture: initialize refused/);
});

test('legacy: a server that refuses logging/setLevel stays connected; the refusal is a warning', async () => {
  const { client, events, count } = mcpClient(['--era', 'legacy', '--refuse-set-level'], {
    logLevel: 'info',
  });
  await client.connect();
  await waitFor(() => count('warning') === 1, 'the warning');
  const warning = events.find(([name]) => name === 'warning')?.[1] as ClientWarning;
  assert.equal(warning.type, 'log_level_refused');
  assert.match(
    warning.message,
    /^fixture: logging\/setLevel info failed \(fixture: logging is not configurable\)/,
  );
  assert.ok(warning.error instanceof McpError);
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { n: 1 } })), '{"n":1}');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(client.state, 'ready');
  assert.equal(count('disconnected'), 0);
  assert.equal(count('reconnecting'), 0);
});

test('legacy: a subscription that cannot be restored after a restart is a warning; the client stays ready', async () => {
  const refuse = path.join(temporaryDirectory(), 'refuse');
  const { client, events, count } = mcpClient(['--era', 'legacy', '--refuse-subscribe-file', refuse]);
  await client.connect();
  await client.subscribeResource('file:///a.txt');
  writeFileSync(refuse, '');
  await client.callTool({ name: 'crash' }).catch(() => {});
  await waitFor(() => count('warning') === 1, 'the warning');
  const warning = events.find(([name]) => name === 'warning')?.[1] as ClientWarning;
  assert.equal(warning.type, 'resubscribe_failed');
  assert.match(
    warning.message,
    /^fixture: restoring resources\/subscribe file:\/\/\/a\.txt after a restart failed/,
  );
  assert.equal(client.state, 'ready');
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { n: 2 } })), '{"n":2}');
});

test('a remembered modern era is confirmed on the new process: a server that now speaks only legacy is found before ready', async () => {
  const eraFile = path.join(temporaryDirectory(), 'era');
  writeFileSync(eraFile, 'modern');
  const { client, count } = mcpClient(['--era-file', eraFile]);
  await client.connect();
  assert.equal(client.era, 'modern');
  writeFileSync(eraFile, 'legacy');
  await client.callTool({ name: 'crash' }).catch(() => {});
  // Made while reconnecting: it waits for the confirmed era and must not fail because of it.
  const result = await client.callTool({ name: 'echo', arguments: { era: 'now legacy' } });
  assert.equal(textOf(result), '{"era":"now legacy"}');
  assert.equal(client.era, 'legacy');
  assert.equal(count('ready'), 2);
});

test("protocol: 'modern' against a legacy-only server fails at once, saying so, and is not retried", async () => {
  for (const probe of ['error', 'invalid']) {
    const { client, count } = mcpClient(['--era', 'legacy', '--probe', probe], { protocol: 'modern' });
    const error = await client.connect().then(
      () => assert.fail('resolved'),
      (reason: unknown) => reason as Error,
    );
    assert.ok(error instanceof UnsupportedProtocolVersionError, String(error));
    assert.match(
      error.message,
      /^fixture: protocol is 'modern' but the server speaks only the legacy era \(/,
    );
    assert.equal(count('reconnecting'), 0);
  }
});

test('legacy: requests held before the era is known are capped (32), and handler runs in flight are capped (16)', async () => {
  const { client, record } = mcpClient(['--era', 'legacy', '--ask-early', '100'], {
    protocol: 'auto',
    handlers: {
      roots: async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { roots: [] };
      },
    },
  });
  await client.connect();
  await waitFor(() => responsesIn(record).length >= 32, 'the answers to the held requests');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const answers = responsesIn(record);
  assert.equal(answers.length, 32, 'the held requests past 32 were dropped');
  assert.equal(answers.filter((answer) => answer.result !== undefined).length, 16);
  const refused = answers.filter((answer) => answer.error !== undefined);
  assert.equal(refused.length, 16);
  assert.match(refused[0]!.error!.message, /already answering 16 requests/);
});

test('progress callbacks of one request are bounded: a burst of 2000 is coalesced, the latest delivered before the result', async () => {
  for (const era of ['legacy', 'modern']) {
    const { client } = mcpClient(['--era', era]);
    await client.connect();
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'progress-burst', arguments: { count: 2000 } },
      { onProgress: ({ progress }) => seen.push(progress) },
    );
    assert.equal(textOf(result), 'burst done');
    assert.ok(seen.length <= 40, `${era}: ${seen.length} callbacks`);
    assert.deepEqual(
      seen.slice(0, 16),
      Array.from({ length: 16 }, (_, i) => i + 1),
      'the first arrive as they are',
    );
    assert.equal(seen.at(-1), 2000, 'the latest is delivered');
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      seen,
      'in order',
    );
  }
});

test('modern: a listen stream that fails is not kept; a warning says so and the next subscription opens a new one', async () => {
  const { client, events, record } = mcpClient(['--era', 'modern', '--listen', 'fail']);
  await client.connect();
  client.on('toolsListChanged', () => {});
  await waitFor(() => events.some(([name]) => name === 'warning'), 'the warning');
  const warning = events.find(([name]) => name === 'warning')?.[1] as ClientWarning;
  assert.equal(warning.type, 'listen_failed');
  assert.match(
    warning.message,
    /^fixture: subscriptions\/listen listen-1 failed \(fixture: listen refused\)/,
  );
  client.on('promptsListChanged', () => {});
  await record.waitFor((message) => message.method === 'subscriptions/listen' && message.id === 'listen-2');
});

test('modern: a listen stream never acknowledged is dropped after requestTimeout, cancelled, warned about, and re-opened on the next subscription', async () => {
  const { client, events, record } = mcpClient(['--era', 'modern', '--listen', 'silent'], {
    requestTimeout: 300,
  });
  await client.connect();
  client.on('toolsListChanged', () => {});
  await waitFor(() => events.some(([name]) => name === 'warning'), 'the warning');
  const warning = events.find(([name]) => name === 'warning')?.[1] as ClientWarning;
  assert.match(warning.message, /did not acknowledge listen-1 within 300 ms/);
  await record.waitFor(
    (message) =>
      message.method === 'notifications/cancelled' &&
      (message.params as { requestId?: string }).requestId === 'listen-1',
  );
  client.on('resourcesListChanged', () => {});
  await record.waitFor((message) => message.method === 'subscriptions/listen' && message.id === 'listen-2');
});

test("ids are the client's: an id given in the options is refused; the library's own ids never collide", async () => {
  const { client, record } = mcpClient(['--era', 'modern']);
  await client.connect();
  client.on('toolsListChanged', () => {});
  await record.waitFor((message) => message.method === 'subscriptions/listen');
  await assert.rejects(
    client.request('tools/list', {}, { id: 'listen-1' } as never),
    (error: unknown) =>
      error instanceof UsageError && /options\.id is not a request option/.test(error.message),
  );
  await Promise.all([1, 2, 3].map((n) => client.callTool({ name: 'echo', arguments: { n } })));
  const ids = record.read().flatMap((message) => (message.id === undefined ? [] : [message.id]));
  assert.equal(new Set(ids).size, ids.length, `unique ids: ${JSON.stringify(ids)}`);
});

test('modern: listen streams waiting to be replaced are capped (4): a filter changing faster than the server acknowledges cancels the oldest', async () => {
  const { client, record } = mcpClient(['--era', 'modern', '--listen', 'silent'], { requestTimeout: 20_000 });
  await client.connect();
  const noop = () => {};
  client.on('toolsListChanged', noop); // listen-1
  client.on('promptsListChanged', noop); // listen-2
  client.on('resourcesListChanged', noop); // listen-3
  client.off('toolsListChanged', noop); // listen-4
  client.off('promptsListChanged', noop); // listen-5
  client.on('toolsListChanged', noop); // listen-6: five wait to be replaced, one too many
  const cancelled = await record.waitFor(
    (message) =>
      message.method === 'notifications/cancelled' &&
      (message.params as { requestId?: string }).requestId === 'listen-1',
    5000,
  );
  assert.ok(cancelled);
  const cancels = record.read().filter((message) => message.method === 'notifications/cancelled');
  assert.deepEqual(
    cancels.map((message) => (message.params as { requestId: string }).requestId),
    ['listen-1'],
    'only the oldest, long before any acknowledgement timeout',
  );
});
