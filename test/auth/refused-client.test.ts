// A client the authorization server no longer accepts (invalid_client at the token endpoint):
// a dynamic registration is replaced once, a configured client is named in an AuthError at once,
// and nobody is ever sent to authorize a client id the server refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryTokenStore } from '../../src/index.js';
import { call, headlessConsent, provider } from '../helpers/auth.js';
import { browser, consent } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, textOf } from '../helpers/auth-oidc.js';
import { authError, paths, setup } from '../helpers/auth-setup.js';

const clientIdOf = (url: URL) => url.searchParams.get('client_id')!;

test('a registration the server dropped, found at refresh: registered again once, the user authorizes the new client', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: 2 });
  const shown: URL[] = [];
  const user = browser();
  const client = oidcClient(mcp.url, {
    store: new MemoryTokenStore(),
    onAuthorizationUrl: (url) => {
      shown.push(url);
      return user(url);
    },
  });
  await client.connect();
  const dropped = clientIdOf(shown[0]!);
  as.deleteClient(dropped);
  await sleep(2100); // due: the refresh meets invalid_client
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'on' } })), 'on');
  assert.equal(shown.length, 2);
  assert.notEqual(clientIdOf(shown[1]!), dropped);
  assert.deepEqual(as.registeredClients(), [clientIdOf(shown[1]!)]);
  const refused = as.requests.filter((r) => r.path === '/token' && r.status === 401);
  assert.equal(refused.length, 1, 'one refused refresh, nothing more sent with the dropped client');
});

test('a registration dropped between consent and the code redemption: registered again once, then authorized', async () => {
  const { as, mcp } = await oidcScene();
  const shown: URL[] = [];
  const client = oidcClient(mcp.url, {
    store: new MemoryTokenStore(),
    onAuthorizationUrl: async (url) => {
      shown.push(url);
      const landed = await consent(url);
      if (shown.length === 1) as.deleteClient(clientIdOf(url));
      return landed;
    },
  });
  await client.connect();
  assert.equal(shown.length, 2);
  assert.notEqual(clientIdOf(shown[1]!), clientIdOf(shown[0]!));
  assert.equal(as.issued('authorization_code'), 1);
});

test('a pre-registered client the server refuses: an AuthError at once naming the client id and the issuer, no new consent', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: 2 });
  const registration = await fetch(`${as.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      application_type: 'native',
    }),
  });
  const { client_id: clientId } = (await registration.json()) as { client_id: string };
  let consents = 0;
  const user = browser();
  const client = oidcClient(mcp.url, {
    clientId,
    onAuthorizationUrl: (url) => {
      consents++;
      return user(url);
    },
  });
  await client.connect();
  as.deleteClient(clientId);
  await sleep(2100);
  const error = await authError(client.callTool({ name: 'echo', arguments: { text: 'x' } }));
  assert.equal(error.error, 'invalid_client');
  assert.ok(error.message.includes(clientId) && error.message.includes(as.issuer), error.message);
  assert.match(error.message, /auth\.clientId/);
  assert.equal(consents, 1);
});

test('a stored registration past its client_secret_expires_at is replaced before the secret is sent again', async () => {
  const { auth, rs } = await setup({
    authMethods: ['client_secret_basic'],
    secretExpiresIn: 1,
    expiresIn: 2,
  });
  const p = provider(rs.url, { store: new MemoryTokenStore(), onAuthorizationUrl: headlessConsent });
  assert.equal((await call(p, rs.url)).status, 200);
  const first = String(auth.requests.find((r) => r.path === '/token')!.authorization);
  // (A first flow slower than the secret's 1 s, on a loaded machine, registers again within it.)
  const registered = paths(auth).filter((path) => path === '/register').length;
  await sleep(2100); // the secret expired at 1 s, the token is due
  assert.equal((await call(p, rs.url)).status, 200);
  // At least once more: on a loaded machine a flow slower than the new secret's 1 s registers again.
  assert.ok(
    paths(auth).filter((path) => path === '/register').length >= registered + 1,
    'registered again once the secret expired',
  );
  const tokenRequests = auth.requests.filter((r) => r.path === '/token');
  assert.equal(
    tokenRequests.filter((r) => r.authorization === first).length,
    1,
    'the expired secret was never sent again',
  );
});
