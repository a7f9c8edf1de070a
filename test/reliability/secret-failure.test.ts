// A Secret whose function throws fails the same way on every transport: a ConfigError naming the
// server and the option, permanent (never retried, never a network or spawn failure), and nothing
// reaches the server. Over stdio (an env Secret) and HTTP (a header and a bearer Secret).
import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { test } from 'node:test';
import { Client, type ClientOptions, ConfigError, Secret } from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { modern, plainServer, result } from '../helpers/http.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();

const RETRYING = { maxReconnects: 3, initialDelay: 10, maxDelay: 20, jitter: 0 };

/** A Secret whose function throws, counting its calls. */
function failingSecret() {
  const calls = { count: 0 };
  const secret = new Secret(() => {
    calls.count++;
    throw new Error('the vault is sealed');
  });
  return { secret, calls };
}

/** Connects, expecting the permanent ConfigError; returns it with what the client reported meanwhile. */
async function failedConnect(options: ClientOptions) {
  const client = new Client({ ...options, reconnect: RETRYING });
  const events: string[] = [];
  for (const event of ['reconnecting', 'disconnected', 'closed'] as const)
    client.on(event, () => events.push(event));
  const error = await client.connect().then(
    () => assert.fail('connect() resolved'),
    (reason: unknown) => reason,
  );
  await client.close();
  assert.ok(error instanceof ConfigError, `a ConfigError was expected: ${String(error)}`);
  return { error, events, state: client.state };
}

function assertPermanent(
  outcome: Awaited<ReturnType<typeof failedConnect>>,
  server: string,
  key: string,
  calls: { count: number },
) {
  const { error, events } = outcome;
  assert.equal(error.server, server);
  assert.equal(error.key, key);
  assert.equal(
    error.message,
    `${server}: the Secret given as ${key} could not be read (the vault is sealed); nothing was sent to the server: fix the Secret's function`,
  );
  assert.doesNotMatch(error.message, /network|spawn/i);
  assert.equal((error.cause as Error).message, 'the vault is sealed');
  assert.deepEqual(events, ['closed'], 'no reconnect: the failure is permanent');
  assert.equal(calls.count, 1, "the Secret's function was called once, never retried");
}

test('stdio: an env Secret that throws is a permanent ConfigError naming the server and transport.env.NAME; nothing is spawned', async () => {
  const spawned: unknown[] = [];
  const onSpawn = (message: unknown) => spawned.push(message);
  dc.subscribe('conduit-mcp:transport:spawn', onSpawn);
  try {
    const { secret, calls } = failingSecret();
    const outcome = await failedConnect({
      name: 'vaulted',
      transport: {
        type: 'stdio',
        ...nodeServer('mcp.mjs', [], { stderr: 'discard', env: { API_TOKEN: secret, PLAIN: 'x' } }),
      },
    });
    assertPermanent(outcome, 'vaulted', 'transport.env.API_TOKEN', calls);
    assert.deepEqual(spawned, [], 'no process was started');
  } finally {
    dc.unsubscribe('conduit-mcp:transport:spawn', onSpawn);
  }
});

test('HTTP: a header or bearer Secret that throws is the same permanent ConfigError; the server gets no request', async () => {
  const server = await plainServer(modern((request, res) => result(res, request, { tools: [] })));
  try {
    const header = failingSecret();
    const withHeader = await failedConnect({
      name: 'remote',
      transport: { type: 'http', url: server.url, headers: { 'X-Api-Key': header.secret } },
    });
    assertPermanent(withHeader, 'remote', 'transport.headers.X-Api-Key', header.calls);
    const bearer = failingSecret();
    const withBearer = await failedConnect({
      name: 'remote',
      transport: { type: 'http', url: server.url, auth: { bearer: bearer.secret } },
    });
    assertPermanent(withBearer, 'remote', 'transport.auth.bearer', bearer.calls);
    assert.equal(server.seen.length, 0, 'nothing was sent to the server');
    // The same server, with a Secret that works: it was there all along.
    const working = new Client({
      name: 'remote',
      transport: { type: 'http', url: server.url, headers: { 'X-Api-Key': new Secret(() => 'k') } },
    });
    await working.connect();
    await working.close();
    assert.ok(server.seen.length > 0);
  } finally {
    await server.close();
  }
});
