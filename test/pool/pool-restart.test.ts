// pool.restart(name): one server replaced by a new Client (new process, fresh reconnect budget),
// the others untouched; after a crash-free run, after giving up, while hung, and after needs_auth.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AuthError, ClientPool, ServerUnavailableError, UnknownNameError } from '../../src/index.js';
import { headlessConsent } from '../helpers/auth.js';
import { fixture } from '../helpers/fixtures.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';
import { textOf, waitFor } from '../helpers/wait.js';
import { fixtureTransport, node, protectedServer } from './helpers.js';

guardProcesses();

const named = (tools: string[]) => fixtureTransport('named-tools.mjs', [JSON.stringify(tools)]);
const stateOf = (pool: ClientPool, name: string) => pool.status().find((s) => s.name === name)!;

test('restart(name) replaces a ready server with a new process: reconnecting, then ready; the others untouched', async () => {
  await using pool = new ClientPool({
    servers: { one: { transport: named(['echo']) }, two: { transport: named(['echo']) } },
  });
  await pool.connect();
  assert.equal((await pool.listTools()).tools.length, 2);
  const events: string[] = [];
  for (const event of ['disconnected', 'serverReady', 'serverError', 'serverClosed', 'closed'] as const) {
    pool.on(event, (payload: { server: string }) => events.push(`${event} ${payload.server}`));
  }
  const before = { one: stateOf(pool, 'one').pid!, two: stateOf(pool, 'two').pid! };
  const restarting = pool.restart('one');
  assert.equal(stateOf(pool, 'one').state, 'ready', 'nothing changes before the old Client is closed');
  await waitFor(() => stateOf(pool, 'one').state !== 'ready', 'one to go down');
  assert.equal(stateOf(pool, 'one').state, 'reconnecting');
  assert.equal(stateOf(pool, 'one').toolCount, 1, 'its last known tools are kept while it restarts');
  assert.deepEqual(pool.resolve('one__echo'), { kind: 'tool', server: 'one', originalName: 'echo' });
  await restarting;
  const after = stateOf(pool, 'one');
  assert.equal(after.state, 'ready');
  assert.equal(after.restarts, 1);
  assert.equal(after.error, undefined);
  assert.notEqual(after.pid, before.one);
  await waitFor(() => !isRunning(before.one), 'the old process to be gone');
  assert.equal(stateOf(pool, 'two').pid, before.two);
  assert.deepEqual(events, ['disconnected one', 'serverReady one']);
  assert.match(textOf(await pool.callTool({ name: 'one__echo' })), /^echo /);
});

test('restart(name) after the client gave up starts again with a fresh reconnect budget', async () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'conduit-restart-'));
  try {
    const script = path.join(directory, 'server.mjs');
    await using pool = new ClientPool({
      servers: {
        // The script does not exist yet: node exits 1 at once, and with no reconnects the client gives up.
        late: {
          transport: { type: 'stdio', command: node, args: [script, '["echo"]'], stderr: 'discard' },
          reconnect: { maxReconnects: 0 },
        },
      },
    });
    await pool.connect();
    await waitFor(() => stateOf(pool, 'late').nextAttemptAt === undefined, 'the client to give up');
    assert.equal(stateOf(pool, 'late').state, 'failed');
    assert.match(stateOf(pool, 'late').error!.message, /exited with status 1/);
    writeFileSync(script, `import ${JSON.stringify(fixture('named-tools.mjs'))};\n`);
    await pool.restart('late');
    const status = stateOf(pool, 'late');
    assert.equal(status.state, 'ready');
    assert.equal(status.error, undefined);
    assert.equal(status.restarts, 1);
    assert.deepEqual(
      (await pool.listTools()).tools.map((tool) => tool.name),
      ['late__echo'],
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('restart(name) of a server still hanging at start closes that process and starts a new one', async () => {
  await using pool = new ClientPool({
    startTimeout: 60_000,
    servers: {
      slow: { transport: fixtureTransport('mcp.mjs', ['--start-delay', '600000']), connectTimeout: 120_000 },
    },
  });
  const connecting = pool.connect();
  await waitFor(() => stateOf(pool, 'slow').pid !== undefined, 'the hung process to run');
  const hung = stateOf(pool, 'slow').pid!;
  const restarting = pool.restart('slow');
  await connecting; // the first start stops waiting once its Client is replaced
  await waitFor(() => !isRunning(hung), 'the hung process to be gone');
  await waitFor(() => stateOf(pool, 'slow').pid !== undefined, 'a new process');
  const status = stateOf(pool, 'slow');
  assert.notEqual(status.pid, hung);
  assert.equal(status.state, 'starting');
  assert.equal(status.restarts, 1);
  assert.equal(status.error, undefined, 'the replaced start is not reported as a failure');
  await pool.close();
  await restarting;
  assert.equal(stateOf(pool, 'slow').state, 'closed');
});

test('restart(name) after needs_auth asks for consent again; once given, the server is ready', async () => {
  const { mcp } = await protectedServer();
  let asked = 0;
  await using pool = new ClientPool({
    servers: {
      remote: {
        transport: {
          type: 'http',
          url: mcp.server.url,
          auth: {
            onAuthorizationUrl: async (url) => {
              asked++;
              if (asked === 1) throw new Error('the user closed the consent window');
              return headlessConsent(url);
            },
          },
        },
      },
    },
  });
  const needs: string[] = [];
  pool.on('serverNeedsAuth', (event) => needs.push(event.server));
  await pool.connect();
  await waitFor(() => stateOf(pool, 'remote').error instanceof AuthError, 'the refusal');
  assert.equal(stateOf(pool, 'remote').state, 'needs_auth');
  assert.match(stateOf(pool, 'remote').error!.message, /the user closed the consent window/);
  await pool.restart('remote'); // resolves at needs_auth: the user is asked again
  await waitFor(() => stateOf(pool, 'remote').state === 'ready', 'remote ready after consent');
  const status = stateOf(pool, 'remote');
  assert.equal(status.state, 'ready');
  assert.equal(status.restarts, 1);
  assert.equal(asked, 2);
  assert.deepEqual(needs, ['remote', 'remote']);
  assert.equal(textOf(await pool.callTool({ name: 'remote__echo', arguments: { text: 'hi' } })), 'hi');
});

test('restart(name) of a ready OAuth server without a store keeps its tokens: the user is not asked again', async () => {
  const { auth, mcp } = await protectedServer();
  let asked = 0;
  await using pool = new ClientPool({
    servers: {
      remote: {
        transport: {
          type: 'http',
          url: mcp.server.url,
          auth: {
            onAuthorizationUrl: async (url) => {
              asked++;
              return headlessConsent(url);
            },
          },
        },
      },
    },
  });
  await pool.connect(); // resolves at needs_auth: consent does not hold it
  await waitFor(() => stateOf(pool, 'remote').state === 'ready', 'remote ready after consent');
  assert.equal(asked, 1);
  const registrations = auth.requests.filter((r) => r.path === '/register').length;
  const tokens = auth.tokenRequests().length;
  const restarting = pool.restart('remote');
  await restarting;
  await waitFor(() => stateOf(pool, 'remote').state === 'ready', 'remote ready after the restart');
  assert.equal(stateOf(pool, 'remote').restarts, 1);
  assert.equal(asked, 1, 'the user was not asked again');
  assert.equal(
    auth.requests.filter((r) => r.path === '/register').length,
    registrations,
    'no new registration',
  );
  assert.equal(auth.tokenRequests().length, tokens, 'the token held was used, none asked for');
  assert.equal(textOf(await pool.callTool({ name: 'remote__echo', arguments: { text: 'hi' } })), 'hi');
});

test('restart(name): an unknown name, a disabled server and a closed pool are refused, naming the fix', async () => {
  const pool = new ClientPool({
    servers: { on: { transport: named(['echo']) }, off: { transport: named(['echo']), disabled: true } },
  });
  // A method that returns a promise rejects it for every refusal, an unknown name included.
  await assert.rejects(pool.restart('nope'), UnknownNameError);
  await assert.rejects(pool.restart('off'), (error: unknown) => {
    assert.ok(error instanceof ServerUnavailableError);
    assert.equal(error.state, 'disabled');
    assert.match(
      error.message,
      /^off: cannot restart: the server is disabled in its config; drop "disabled": true/,
    );
    return true;
  });
  await pool.connect();
  await pool.close();
  await assert.rejects(
    pool.restart('on'),
    /^ServerUnavailableError: on: cannot restart: the pool is closed.*make a new ClientPool/,
  );
  assert.equal(stateOf(pool, 'on').state, 'closed');
});
