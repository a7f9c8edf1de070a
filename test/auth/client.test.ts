// OAuth through the whole stack: a Client with `transport.auth` against the official SDK's MCP
// server (both eras) protected by the loopback authorization server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AuthError,
  Client,
  ConnectTimeoutError,
  HttpError,
  MemoryTokenStore,
  type OAuthOptions,
  Secret,
} from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { headlessConsent } from '../helpers/auth.js';
import { closeLater } from '../helpers/auth-setup.js';
import { plainServer } from '../helpers/http.js';
import { type Protection, startProtectedMcp } from '../helpers/protected-mcp.js';

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

async function serve(protection: Protection = {}, sdk: 'v1' | 'v2' = 'v1', expiresIn?: number) {
  const auth = await startAuthServer({ expiresIn, scopesSupported: ['mcp', 'mcp:write'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, sdk, protection);
  return { auth, mcp };
}

function oauthClient(url: string, auth: OAuthOptions, extra: Record<string, unknown> = {}) {
  const client = new Client({
    name: 'remote',
    transport: { type: 'http', url, auth: { allowPrivateNetwork: true, ...auth } },
    reconnect: { maxReconnects: 0 },
    ...extra,
  });
  closeLater(() => client.close());
  return client;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => assert.fail('resolved; a rejection was expected'),
    (reason: unknown) => reason as Error,
  );
}

for (const sdk of ['v1', 'v2'] as const) {
  test(`SDK ${sdk}: the Client gets consent through onAuthorizationUrl once, then every request carries the token`, async () => {
    const { auth, mcp } = await serve({}, sdk);
    const shown: URL[] = [];
    const client = oauthClient(mcp.server.url, {
      onAuthorizationUrl: (url) => {
        shown.push(url);
        return headlessConsent(url);
      },
    });
    await client.connect();
    assert.equal(client.era, sdk === 'v1' ? 'legacy' : 'modern');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
    await client.close();
    assert.equal(shown.length, 1);
    assert.equal(shown[0]!.origin, auth.origin);
    assert.equal(shown[0]!.searchParams.get('resource'), mcp.server.url);
    const seen = mcp.authorizations();
    assert.equal(seen[0], '', 'the first request has no token yet');
    const token = seen[1]!;
    assert.match(token, /^Bearer at-/);
    assert.ok(
      seen.slice(1).every((header) => header === token),
      'every later request (GET and DELETE too) carries it',
    );
    // The MCP token never goes to the authorization server.
    assert.ok(auth.requests.every((r) => !r.authorization?.startsWith('Bearer')));
  });
}

test('expiry under load through the Client: a hundred concurrent calls with a due token cause one refresh', async () => {
  const { auth, mcp } = await serve({}, 'v2', 1);
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  await client.connect();
  await sleep(1000); // the token (expires_in 1 s) is due for refresh
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })),
  );
  assert.deepEqual(
    results.map(textOf),
    Array.from({ length: 100 }, (_, i) => `n${i}`),
  );
  assert.equal(auth.tokenRequests('refresh_token').length, 1);
  assert.equal(auth.tokenRequests('authorization_code').length, 1);
});

test('a token the server stops taking mid-session is refreshed with the metadata known; a second refusal discovers anew', async () => {
  const { auth, mcp } = await serve({}, 'v2');
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  await client.connect();
  const metadataFetches = () =>
    auth.requests.filter((request) => request.path.startsWith('/.well-known/')).length;
  const fetched = metadataFetches();
  assert.ok(fetched > 0, 'the first authorization read the metadata');
  auth.accessTokens.clear(); // the resource no longer takes the token the client holds
  const after = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
  assert.equal(textOf(after), 'after');
  assert.equal(auth.tokenRequests('refresh_token').length, 1);
  assert.equal(auth.tokenRequests('authorization_code').length, 1);
  assert.equal(metadataFetches(), fetched, 'the refresh did not fetch the metadata again');
  mcp.protection.forever401 = true; // refused even after a refresh: discovered anew
  await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'never' } }), AuthError);
  assert.ok(metadataFetches() > fetched, 'a second refusal fetched the metadata again');
});

test('a redirect to another origin is not followed: the token never reaches it', async () => {
  const foreign = await plainServer((_, res) => void res.writeHead(200).end('{}'));
  closeLater(foreign.close);
  const { mcp } = await serve({}, 'v1');
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  await client.connect();
  mcp.protection.redirectTo = `${foreign.origin}/mcp`;
  const error = await rejection(client.callTool({ name: 'echo', arguments: { text: 'x' } }));
  assert.ok(error instanceof HttpError && error.kind === 'redirect', String(error));
  assert.match(error.message, /another origin/);
  assert.equal(foreign.seen.length, 0);
});

test('403 insufficient_scope steps up with the union of the scopes and retries the call', async () => {
  const { auth, mcp } = await serve({ toolScope: 'mcp:write', challengeScope: 'mcp' }, 'v1');
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'up' } })), 'up');
  const asked = auth.requests.filter((r) => r.path === '/authorize').map((r) => r.query.get('scope'));
  assert.deepEqual(asked, ['mcp', 'mcp mcp:write']);
});

test('a scope the authorization server never grants: at most three authorizations, then an AuthError', async () => {
  const auth = await startAuthServer({ grantOnly: ['mcp'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1', { toolScope: 'mcp:write', challengeScope: 'mcp' });
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  await client.connect();
  const error = await rejection(client.callTool({ name: 'echo', arguments: { text: 'no' } }));
  assert.ok(error instanceof AuthError, String(error));
  assert.equal(error.status, 403);
  assert.ok(auth.requests.filter((r) => r.path === '/authorize').length <= 3);
});

test('a server that answers 401 forever: a bounded number of authorizations, a typed error, no secret in it', async () => {
  const { auth, mcp } = await serve({ forever401: true }, 'v1');
  const client = oauthClient(mcp.server.url, { onAuthorizationUrl: headlessConsent });
  const error = await rejection(client.connect());
  assert.ok(error instanceof AuthError, String(error));
  assert.equal(error.step, 'authorization');
  assert.match(error.message, /still answers 401/);
  assert.ok(auth.tokenRequests().length <= 3, `${auth.tokenRequests().length} token requests`);
  const text = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
  for (const secret of auth.issued) assert.ok(!text.includes(secret), 'an issued credential is in the error');
  assert.equal(client.state, 'closed');
});

test('connectTimeout does not count the wait for consent, and still bounds the rest of the handshake', async () => {
  const { mcp } = await serve({}, 'v1');
  const slowUser = oauthClient(
    mcp.server.url,
    {
      onAuthorizationUrl: async (url) => {
        await sleep(1500);
        return headlessConsent(url);
      },
    },
    { connectTimeout: 1000 },
  );
  await slowUser.connect();
  assert.equal(textOf(await slowUser.callTool({ name: 'echo', arguments: { text: 'late' } })), 'late');

  // After consent, a server that never answers still fails the attempt within connectTimeout.
  const silent = await plainServer(() => {}); // never answers
  closeLater(silent.close);
  const stalled = oauthClient(silent.url, { onAuthorizationUrl: headlessConsent }, { connectTimeout: 500 });
  const started = Date.now();
  const error = await rejection(stalled.connect());
  assert.ok(error instanceof ConnectTimeoutError, String(error));
  assert.ok(Date.now() - started < 5000);
});

test('a request waiting for the session does not count the wait for consent either', async () => {
  const { mcp } = await serve({}, 'v1');
  const slowUser = oauthClient(mcp.server.url, {
    onAuthorizationUrl: async (url) => {
      await sleep(1500);
      return headlessConsent(url);
    },
  });
  const connecting = slowUser.connect();
  // Sent while the user is still being asked: its 1000 ms run only once consent is given.
  const call = slowUser.callTool({ name: 'echo', arguments: { text: 'waited' } }, { timeout: 1000 });
  await connecting;
  assert.equal(textOf(await call), 'waited');
});

test('client_credentials through the Client: no user, the token on every request', async () => {
  const auth = await startAuthServer({
    authMethods: ['client_secret_basic'],
    clients: [{ id: 'machine', method: 'client_secret_basic', secret: 'machine-secret' }],
  });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2');
  const store = new MemoryTokenStore();
  const client = oauthClient(mcp.server.url, {
    grant: 'client_credentials',
    clientId: 'machine',
    clientSecret: new Secret('machine-secret'),
    store,
  });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'm2m' } })), 'm2m');
  assert.equal(auth.tokenRequests('client_credentials').length, 1);
  assert.equal(auth.requests.filter((r) => r.path === '/authorize').length, 0);
});

test('close() during client registration: the request is aborted and the user is never sent to the browser', async () => {
  const auth = await startAuthServer({ registrationDelay: 400 });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1', {});
  const shown: URL[] = [];
  const client = oauthClient(mcp.server.url, {
    onAuthorizationUrl: (url) => {
      shown.push(url);
      return new Promise<undefined>(() => {});
    },
  });
  const connecting = rejection(client.connect());
  for (let i = 0; i < 200 && !auth.requests.some((r) => r.path === '/register'); i++) await sleep(10);
  assert.ok(
    auth.requests.some((r) => r.path === '/register'),
    'the client was registering',
  );
  await client.close();
  await connecting;
  const registration = auth.requests.find((r) => r.path === '/register')!;
  for (let i = 0; i < 30 && !registration.abandoned; i++) await sleep(10);
  assert.ok(registration.abandoned, 'the registration request was aborted by close(), not left to run');
  await sleep(800); // the registration answer would have arrived by now
  assert.equal(auth.requests.filter((r) => r.path === '/register').length, 1);
  assert.deepEqual(shown, [], 'no authorization URL after close()');
});

test('close() while the user is asked ends the wait at once and closes the loopback listener', async () => {
  const { mcp } = await serve({}, 'v1');
  let shown: URL | undefined;
  const client = oauthClient(mcp.server.url, {
    onAuthorizationUrl: (url) => {
      shown = url;
      return new Promise<undefined>(() => {}); // the user never comes back
    },
  });
  const connecting = rejection(client.connect());
  for (let i = 0; i < 200 && !shown; i++) await sleep(25);
  assert.ok(shown, 'the authorization URL was shown');
  const redirectUri = shown.searchParams.get('redirect_uri')!;
  assert.equal((await fetch(`${redirectUri}?state=wrong`)).status, 400, 'the listener is up while waiting');
  const started = Date.now();
  await client.close();
  await connecting;
  assert.ok(Date.now() - started < 5000, 'not the 5-minute authorizationTimeout');
  await assert.rejects(fetch(redirectUri), 'the listener is closed');
});
