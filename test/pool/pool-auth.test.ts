// needs_auth for real: the official SDK's MCP server over HTTP on 127.0.0.1, protected by the
// loopback authorization server, in a pool beside a stdio server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError, ClientPool, HttpError, UnknownNameError } from '../../src/index.js';
import { headlessConsent } from '../helpers/auth.js';
import { guardProcesses } from '../helpers/processes.js';
import { textOf, waitFor } from '../helpers/wait.js';
import { fixtureTransport, protectedServer } from './helpers.js';

guardProcesses();

const stateOf = (pool: ClientPool, name: string) => pool.status().find((s) => s.name === name)!;

test('a server waiting for OAuth consent is needs_auth (with serverNeedsAuth), holds neither connect() nor the others, and is ready once the user answers', async () => {
  const { auth, mcp } = await protectedServer();
  let consent!: () => void;
  const given = new Promise<void>((resolve) => {
    consent = resolve;
  });
  await using pool = new ClientPool({
    servers: {
      local: { transport: fixtureTransport('named-tools.mjs', ['["echo"]']) },
      remote: {
        transport: {
          type: 'http',
          url: mcp.server.url,
          auth: {
            onAuthorizationUrl: async (url) => {
              await given; // the user takes their time
              return headlessConsent(url);
            },
          },
        },
      },
    },
  });
  const asked: Array<{ server: string; url: URL }> = [];
  pool.on('serverNeedsAuth', (event) => asked.push(event));
  await pool.connect(); // resolves although the user has not answered
  assert.equal(stateOf(pool, 'local').state, 'ready');
  assert.equal(stateOf(pool, 'remote').state, 'needs_auth');
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.server, 'remote');
  assert.equal(asked[0]!.url.origin, auth.origin);
  const { tools } = await pool.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['local__echo'],
  );
  assert.match(
    textOf(await pool.callTool({ name: 'local__echo' })),
    /^echo \d+$/,
    'the others work meanwhile',
  );
  consent();
  await waitFor(() => stateOf(pool, 'remote').state === 'ready', 'remote ready after consent');
  const result = await pool.callTool({ name: 'remote__echo', arguments: { text: 'authorized' } });
  assert.equal(textOf(result), 'authorized');
  assert.equal(asked.length, 1, 'consent asked once');
  assert.match(mcp.authorizations().at(-1)!, /^Bearer /);
});

test('a server that needs consent with no way to ask the user is needs_auth with the AuthError, and is not retried', async () => {
  const { mcp } = await protectedServer();
  await using pool = new ClientPool({
    servers: {
      // OAuth configured, no onAuthorizationUrl: the flow cannot reach a user.
      remote: {
        transport: { type: 'http', url: mcp.server.url, auth: {} },
        reconnect: { maxReconnects: 5, initialDelay: 100 },
      },
    },
  });
  const errors: string[] = [];
  pool.on('serverError', (event) => errors.push(event.state));
  await pool.connect();
  const status = stateOf(pool, 'remote');
  assert.equal(status.state, 'needs_auth');
  assert.ok(status.error instanceof AuthError, `an AuthError, got ${status.error}`);
  assert.match(status.error.message, /onAuthorizationUrl/);
  assert.equal(status.nextAttemptAt, undefined);
  assert.deepEqual(errors, ['needs_auth']);
  const seen = mcp.authorizations().length;
  await sleep(1500); // a retry loop would have come back by now (the first backoff is well under this)
  assert.equal(mcp.authorizations().length, seen, 'no further attempt');
  assert.equal(stateOf(pool, 'remote').restarts, 0);
  const error = await pool.callTool({ name: 'remote__echo' }).then(
    () => assert.fail('resolved'),
    (reason: Error) => reason,
  );
  // Its tools were never listed: the call names the server that is down and why.
  assert.ok(error instanceof UnknownNameError);
  assert.match(error.message, /remote \(needs_auth: .*onAuthorizationUrl/);
});

test('a server that answers 401 with no authorization configured is needs_auth, not failed, and is not retried', async () => {
  const { mcp } = await protectedServer();
  await using pool = new ClientPool({
    servers: {
      remote: {
        transport: { type: 'http', url: mcp.server.url },
        reconnect: { maxReconnects: 5, initialDelay: 100 },
      },
    },
  });
  await pool.connect();
  const status = stateOf(pool, 'remote');
  assert.equal(status.state, 'needs_auth');
  assert.ok(status.error instanceof HttpError && status.error.status === 401, `a 401, got ${status.error}`);
  assert.match(status.error.message, /needs authorization, and none is configured/);
  assert.equal(status.nextAttemptAt, undefined);
  const seen = mcp.authorizations().length;
  await sleep(1500);
  assert.equal(mcp.authorizations().length, seen, 'no further attempt');
});
