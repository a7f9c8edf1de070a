import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  Client,
  ClientPool,
  ConfigError,
  NameCollisionError,
  ServerUnavailableError,
  StartTimeoutError,
} from '../../src/index.js';
import { resolvePoolOptions, splitServerOptions } from '../../src/pool/options.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';
import { textOf, waitFor } from '../helpers/wait.js';
import { fixtureTransport, MODEL_SAFE, node } from './helpers.js';

guardProcesses();

const named = (tools: string[], ...extra: string[]) =>
  fixtureTransport('named-tools.mjs', [JSON.stringify(tools), ...extra]);
const stateOf = (pool: ClientPool, name: string) => pool.status().find((s) => s.name === name)!;

test('a server that hangs at start fails at its startTimeout; connect() does not wait for it', async () => {
  await using pool = new ClientPool({
    servers: {
      quick: { transport: named(['echo']) },
      hung: { transport: fixtureTransport('mcp.mjs', ['--start-delay', '600000']), startTimeout: 1500 },
    },
  });
  const started = Date.now();
  await pool.connect();
  const took = Date.now() - started;
  assert.ok(took >= 1400 && took < 10_000, `connect() took ${took} ms`);
  assert.equal(stateOf(pool, 'quick').state, 'ready');
  const hung = stateOf(pool, 'hung');
  assert.equal(hung.state, 'failed');
  assert.ok(hung.error instanceof StartTimeoutError);
  assert.match(hung.error.message, /^hung: not ready within 1500 ms \(startTimeout\)/);
  assert.match(textOf(await pool.callTool({ name: 'quick__echo' })), /^echo /);
});

test('during connect(), a call to a ready server is not held by one still starting', async () => {
  await using pool = new ClientPool({
    servers: {
      quick: { transport: named(['echo']) },
      hung: { transport: fixtureTransport('mcp.mjs', ['--start-delay', '600000']), startTimeout: 60_000 },
    },
  });
  const connecting = pool.connect().then(() => 'connect() resolved');
  await waitFor(() => stateOf(pool, 'quick').state === 'ready', 'quick to be ready');
  const call = pool.callTool({ name: 'quick__echo' }).then((result) => textOf(result));
  const first = await Promise.race([call, connecting]);
  assert.match(first, /^echo /, 'the call answered while hung was still starting');
  assert.equal(stateOf(pool, 'hung').state, 'starting');
});

test("startTimeout's default: the pool's, else the server's connectTimeout (a slow first start may need more than 60 s), else 60000", () => {
  const transport = { type: 'stdio', command: node } as const;
  const split = (server: object, pool: object = {}) =>
    splitServerOptions('s', { transport, ...server }, resolvePoolOptions({ servers: {}, ...pool }))
      .startTimeout;
  assert.equal(split({}), 60_000);
  assert.equal(split({ connectTimeout: 120_000 }), 120_000);
  assert.equal(split({ connectTimeout: 120_000 }, { startTimeout: 5000 }), 5000);
  assert.equal(split({ connectTimeout: 120_000, startTimeout: 7000 }, { startTimeout: 5000 }), 7000);
});

test('a server whose options the Client refuses (no transport) is failed with the ConfigError; the others run', async () => {
  await using pool = new ClientPool({
    servers: { broken: {} as never, fine: { transport: named(['echo']) } },
  });
  await pool.connect();
  const broken = stateOf(pool, 'broken');
  assert.equal(broken.state, 'failed');
  assert.ok(broken.error instanceof ConfigError);
  assert.match(broken.error.message, /transport must be an object/);
  assert.equal(stateOf(pool, 'fine').state, 'ready');
});

test('a server that crashes later: reconnecting with the next attempt time, its tools listed as unavailable, calls fail at once', async () => {
  const events: string[] = [];
  await using pool = new ClientPool({
    servers: {
      steady: { transport: named(['echo']) },
      flaky: {
        transport: fixtureTransport('mcp.mjs', ['--era', 'legacy', '--exit-after-ready', '700']),
        reconnect: { maxReconnects: 1, initialDelay: 20_000, maxDelay: 20_000, jitter: 0 },
      },
    },
  });
  pool.on('disconnected', (event) => events.push(`disconnected ${event.server}`));
  pool.on('reconnecting', (event) => events.push(`reconnecting ${event.server} ${event.attempt}`));
  pool.on('serverError', (event) => events.push(`serverError ${event.server} ${event.state}`));
  await pool.connect();
  const before = (await pool.listTools()).tools.filter((tool) => tool.server === 'flaky');
  assert.ok(before.length > 0 && before.every((tool) => tool.available));
  await waitFor(() => stateOf(pool, 'flaky').state === 'reconnecting', 'flaky to go down');
  const flaky = stateOf(pool, 'flaky');
  assert.match(flaky.error!.message, /exited with status 1/);
  assert.ok(flaky.nextAttemptAt! > Date.now() + 10_000, 'the next attempt is about 20 s away');
  assert.equal(flaky.restarts, 1);
  assert.deepEqual(events, ['disconnected flaky', 'serverError flaky reconnecting', 'reconnecting flaky 1']);
  const listed = (await pool.listTools()).tools.filter((tool) => tool.server === 'flaky');
  assert.deepEqual(
    listed.map((tool) => tool.name),
    before.map((tool) => tool.name),
  );
  assert.ok(listed.every((tool) => tool.available === false));
  const started = Date.now();
  await assert.rejects(pool.callTool({ name: 'flaky__echo' }), (error: unknown) => {
    assert.ok(error instanceof ServerUnavailableError);
    assert.equal(error.state, 'reconnecting');
    assert.match(
      error.message,
      /^flaky: tools\/call flaky__echo is unavailable: the server is reconnecting \(next attempt in \d+ ms\); last error: .*exited with status 1/,
    );
    return true;
  });
  assert.ok(Date.now() - started < 1000, 'rejected at once');
  assert.match(textOf(await pool.callTool({ name: 'steady__echo' })), /^echo /);

  await using dropping = new ClientPool({
    unavailableTools: 'drop',
    servers: {
      flaky: {
        transport: fixtureTransport('mcp.mjs', ['--era', 'legacy', '--exit-after-ready', '500']),
        reconnect: { maxReconnects: 0 },
      },
    },
  });
  await dropping.connect();
  assert.ok((await dropping.listTools()).tools.length > 0);
  await waitFor(() => stateOf(dropping, 'flaky').state === 'failed', 'the client to give up');
  assert.deepEqual((await dropping.listTools()).tools, []);
});

test('a failed start is retried under its reconnect policy, with the error and the next attempt time', async () => {
  await using pool = new ClientPool({
    servers: {
      broken: {
        transport: fixtureTransport('mcp.mjs', ['--exit-at-start', '2']),
        reconnect: { maxReconnects: 3, initialDelay: 30_000, maxDelay: 30_000, jitter: 0 },
      },
    },
  });
  const started = Date.now();
  await pool.connect();
  assert.ok(Date.now() - started < 10_000, 'connect() does not wait for the retries');
  const broken = stateOf(pool, 'broken');
  assert.equal(broken.state, 'failed');
  assert.match(broken.error!.message, /exited with status 2/);
  assert.ok(broken.nextAttemptAt! > Date.now() + 20_000);
});

test('collisions that remain after renaming are errors naming both servers and tools', async () => {
  await using pool = new ClientPool({
    toolName: (_server, tool) => tool,
    servers: { one: { transport: named(['echo', 'only-one']) }, two: { transport: named(['echo']) } },
  });
  await pool.connect();
  await assert.rejects(pool.listTools(), (error: unknown) => {
    assert.ok(error instanceof NameCollisionError);
    assert.deepEqual(error.servers, ['one', 'two']);
    assert.deepEqual(error.names, ['echo', 'echo']);
    assert.match(error.message, /^the tool name "echo" stands for both one's "echo" and two's "echo"/);
    return true;
  });
  await assert.rejects(pool.callTool({ name: 'echo' }), NameCollisionError);
  assert.match(textOf(await pool.callTool({ name: 'only-one' })), /^only-one /);
  assert.throws(() => new ClientPool({ servers: {}, toolName: 'x' as never }), ConfigError);
  assert.throws(() => new ClientPool({ servers: {}, toolNameCharacters: /[a-z]/ }), /"_" among them/);
});

test('names: dots and spaces replaced, 100 characters shortened by a stable hash', async () => {
  const long = 'x'.repeat(100);
  await using pool = new ClientPool({
    servers: { 'my server.v2': { transport: named(['read.file', 'list all', long, `${long}y`]) } },
  });
  await pool.connect();
  const { tools } = await pool.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of names) assert.match(name, MODEL_SAFE);
  assert.deepEqual(names.slice(0, 2), ['my_server_v2__read_file', 'my_server_v2__list_all']);
  assert.notEqual(names[2], names[3], 'two long names with one prefix stay apart');
  assert.deepEqual(pool.resolve(names[3]!), {
    kind: 'tool',
    server: 'my server.v2',
    originalName: `${long}y`,
  });
  assert.match(textOf(await pool.callTool({ name: names[1]! })), /^list all /);
  assert.equal(pool.resolve('nope'), undefined);
});

test('lazy servers start on first use; change notifications refresh the merged list and are re-emitted', async () => {
  await using pool = new ClientPool({
    lazy: true,
    servers: {
      dual: { transport: fixtureTransport('mcp.mjs') },
      legacy: { transport: fixtureTransport('mcp.mjs', ['--era', 'legacy']) },
    },
  });
  await pool.connect();
  assert.deepEqual(
    pool.status().map((s) => s.state),
    ['idle', 'idle'],
  );
  const changed: string[] = [];
  pool.on('toolsListChanged', (event) => changed.push(event.server));
  const { tools } = await pool.listTools();
  assert.deepEqual(
    pool.status().map((s) => s.state),
    ['ready', 'ready'],
  );
  assert.deepEqual(
    pool.status().map((s) => s.era),
    ['modern', 'legacy'],
  );
  assert.ok(tools.some((tool) => tool.name === 'dual__change'));
  await pool.callTool({ name: 'legacy__change' });
  await pool.callTool({ name: 'dual__change' });
  await waitFor(() => changed.includes('legacy') && changed.includes('dual'), 'both change notifications');
  assert.equal((await pool.listTools()).tools.length, tools.length);
});

test('connect() fetches no tools list while servers boot; listTools() right after it has every tool', async () => {
  // Ten servers, two starting at a time, server i with i + 1 tools.
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [
      `s${i}`,
      { transport: named(Array.from({ length: i + 1 }, (_, t) => `t${t}`)) },
    ]),
  );
  await using pool = new ClientPool({ servers, concurrency: 2 });
  const order: string[] = [];
  pool.on('serverReady', (event) => order.push(`ready ${event.server}`));
  const onMessage = (message: unknown) => {
    const { direction, text, server } = message as { direction: string; text: string; server: string };
    if (direction === 'send' && text.includes('"tools/list"')) order.push(`tools/list ${server}`);
    if (direction === 'receive' && !order.includes(`answer ${server}`)) order.push(`answer ${server}`);
  };
  const onSpawn = (message: unknown) => order.push(`spawn ${(message as { server: string }).server}`);
  dc.subscribe('conduit-mcp:transport:message', onMessage);
  dc.subscribe('conduit-mcp:transport:spawn', onSpawn);
  try {
    await pool.connect();
    const { tools } = await pool.listTools();
    assert.equal(tools.length, 55, 'every server listed, none missing');
    for (let i = 0; i < 10; i++) assert.equal(tools.filter((tool) => tool.server === `s${i}`).length, i + 1);
  } finally {
    dc.unsubscribe('conduit-mcp:transport:message', onMessage);
    dc.unsubscribe('conduit-mcp:transport:spawn', onSpawn);
  }
  // Two places for ten servers, each given back at the server's first message: the last one has
  // booted once all ten have answered. Before that, no list is asked for; then the servers ready
  // by then are listed together, the others on their ready.
  const firstList = order.findIndex((entry) => entry.startsWith('tools/list '));
  assert.equal(order.filter((entry) => entry.startsWith('spawn ')).length, 10);
  const answeredBefore = order.slice(0, firstList).filter((entry) => entry.startsWith('answer ')).length;
  assert.equal(answeredBefore, 10, `no tools/list while a server was booting: ${order.join(', ')}`);
  const readyBefore = order.slice(0, firstList).filter((entry) => entry.startsWith('ready ')).length;
  assert.ok(readyBefore >= 1, `ready servers are listed together: ${order.join(', ')}`);
  const nextReady = order.findIndex((entry, i) => i > firstList && entry.startsWith('ready '));
  const listedTogether = order
    .slice(firstList, nextReady === -1 ? undefined : nextReady)
    .filter((entry) => entry.startsWith('tools/list '));
  // (A server's own list on its ready is sent just before its serverReady event.)
  assert.ok(listedTogether.length >= readyBefore, `the ready servers listed at once: ${order.join(', ')}`);
  assert.equal(order.filter((entry) => entry.startsWith('tools/list ')).length, 10, 'one list per server');
  assert.deepEqual(
    pool.status().map((s) => s.toolCount),
    Array.from({ length: 10 }, (_, i) => i + 1),
  );
});

test("a start place is given back at the server's first message: a server stuck in its handshake holds no other back, a silent one does until its startTimeout", async () => {
  // One place. `stuck` answers the era probe (-32601) and then never answers initialize.
  await using pool = new ClientPool({
    concurrency: 1,
    servers: {
      stuck: {
        transport: fixtureTransport('mcp.mjs', ['--era', 'legacy', '--init-silent']),
        startTimeout: 30_000,
      },
      next: { transport: named(['echo']) },
    },
  });
  const readyAt = new Map<string, number>();
  const began = performance.now();
  pool.on('serverReady', (event) => readyAt.set(event.server, performance.now() - began));
  const connecting = pool.connect();
  await waitFor(() => readyAt.has('next'), 'next ready while stuck still waits for initialize', 15_000);
  assert.equal(stateOf(pool, 'stuck').state, 'starting');
  assert.ok(readyAt.get('next')! < 15_000);
  await pool.close();
  await connecting;

  // `silent` writes nothing: it keeps the only place until its startTimeout.
  await using held = new ClientPool({
    concurrency: 1,
    servers: {
      silent: { transport: fixtureTransport('mcp.mjs', ['--start-delay', '600000']), startTimeout: 1500 },
      after: { transport: named(['echo']) },
    },
  });
  const start = performance.now();
  let afterReady = Number.NaN;
  held.on('serverReady', (event) => {
    if (event.server === 'after') afterReady = performance.now() - start;
  });
  await held.connect();
  assert.equal(stateOf(held, 'silent').state, 'failed');
  assert.equal(stateOf(held, 'after').state, 'ready');
  assert.ok(
    afterReady >= 1400,
    `after was ready ${Math.round(afterReady)} ms in: before silent's startTimeout`,
  );
});

test('status() knows the tool counts once connect() has resolved, without a listTools(); a server ready later is listed on its ready', async () => {
  await using pool = new ClientPool({
    servers: {
      one: { transport: named(['a']) },
      two: { transport: named(['a', 'b']) },
      later: { transport: named(['a', 'b', 'c']), lazy: true },
    },
  });
  await pool.connect();
  await waitFor(
    () => stateOf(pool, 'one').toolCount === 1 && stateOf(pool, 'two').toolCount === 2,
    'both counts',
  );
  assert.equal(stateOf(pool, 'later').toolCount, undefined);
  pool.get('later');
  await waitFor(() => stateOf(pool, 'later').toolCount === 3, 'the lazy server counted on its ready');
});

test("a pool server's Client is a Client whose own listeners hear its lifecycle events after the member has seen them", async () => {
  await using pool = new ClientPool({ servers: { one: { transport: named(['a']) } } });
  const client = pool.get('one')!;
  assert.ok(client instanceof Client);
  const heard: string[] = [];
  client.on('ready', () => heard.push(`ready, member ${stateOf(pool, 'one').state}`));
  client.on('closed', () => heard.push(`closed, member ${stateOf(pool, 'one').state}`));
  await pool.connect();
  await pool.close();
  assert.deepEqual(heard, ['ready, member ready', 'closed, member closed']);
});

test('log messages and notifications are relayed with the server name, also to listeners added after connect()', async () => {
  await using pool = new ClientPool({
    servers: {
      quiet: { transport: named(['echo']) },
      chatty: { transport: fixtureTransport('cli-server.mjs') },
    },
  });
  await pool.connect();
  const logs: string[] = [];
  const notifications: string[] = [];
  pool.on('log', (event) => logs.push(`${event.server} ${event.level}`));
  pool.on('notification', (event) => notifications.push(`${event.server} ${event.notification.method}`));
  await pool.callTool({ name: 'chatty__log' });
  await waitFor(() => logs.length >= 4, 'four log messages');
  assert.deepEqual(logs.slice(0, 4), ['chatty debug', 'chatty info', 'chatty warning', 'chatty error']);
  assert.ok(notifications.includes('chatty notifications/message'));
  assert.ok(!notifications.some((text) => text.startsWith('quiet')));
});

test('100 servers from one pool: all ready, then close() and every process is gone', async () => {
  const servers = Object.fromEntries(
    Array.from({ length: 100 }, (_, i) => [`s${i}`, { transport: named(['echo']) }]),
  );
  const pool = new ClientPool({ servers });
  const ready: string[] = [];
  pool.on('serverReady', (event) => ready.push(event.server));
  await pool.connect();
  assert.equal(ready.length, 100);
  assert.ok(pool.status().every((s) => s.state === 'ready'));
  assert.equal((await pool.listTools()).tools.length, 100);
  const pids = pool.status().map((s) => s.pid!);
  assert.equal(new Set(pids).size, 100);
  await pool.close();
  const deadline = Date.now() + 15_000;
  while (pids.some(isRunning) && Date.now() < deadline) await sleep(50);
  assert.deepEqual(pids.filter(isRunning), []);
});

test('the exit hook covers every server of a pool the host never closed', async () => {
  const host = path.resolve(import.meta.dirname, '../fixtures/hosts/pool-exit.ts');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', host], {
    timeout: 30_000,
  });
  const pids = JSON.parse(stdout) as number[];
  assert.equal(pids.length, 3);
  const deadline = Date.now() + 5000;
  while (pids.some(isRunning) && Date.now() < deadline) await sleep(20);
  assert.deepEqual(pids.filter(isRunning), []);
});
