// OAuth against a certified authorization server (oidc-provider) in front of an MCP server that
// accepts only audience-bound JWTs; the user signs in and consents on the server's own forms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryTokenStore } from '../../src/index.js';
import { type BrowserVisit, browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, textOf } from '../helpers/auth-oidc.js';

test('a Client authorizes at oidc-provider: login and consent forms, a JWT for the MCP resource, then calls', async () => {
  const { as, mcp, refusals } = await oidcScene();
  const visit: BrowserVisit = { submitted: [], landed: undefined };
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser(visit), store: new MemoryTokenStore() });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
  assert.deepEqual(visit.submitted, ['login', 'consent']);
  assert.equal(new URL(visit.landed!).searchParams.get('iss'), as.issuer);
  assert.deepEqual(refusals, ['no token']);
  assert.equal(as.issued('authorization_code'), 1);
});

test('offline_access is asked with prompt=consent, so oidc-provider issues a refresh token and the expiry needs no new consent', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: 2 });
  const shown: URL[] = [];
  const store = new MemoryTokenStore();
  const consentOnce = browser();
  const client = oidcClient(mcp.url, {
    store,
    onAuthorizationUrl: (url) => {
      shown.push(url);
      return consentOnce(url);
    },
  });
  await client.connect();
  assert.equal(shown.length, 1);
  assert.deepEqual(shown[0]!.searchParams.get('scope')?.split(' ').sort(), ['mcp', 'offline_access']);
  assert.equal(shown[0]!.searchParams.get('prompt'), 'consent');
  const stored = await store.get(`tokens ${as.issuer} ${mcp.url}`);
  assert.ok(stored?.kind === 'tokens' && stored.refreshToken, 'a refresh token was issued and kept');
  await sleep(2100); // the 2 s access token is due
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'later' } })), 'later');
  assert.equal(as.issued('refresh_token'), 1);
  assert.equal(shown.length, 1, 'no second consent');
});

test('stored tokens go out on the very first request of a new Client: no 401, no discovery', async () => {
  const { as, mcp, refusals } = await oidcScene();
  const store = new MemoryTokenStore();
  const first = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
  await first.connect();
  await first.close();
  const before = mcp.requests.length;
  const asBefore = as.requests.length;
  const second = oidcClient(mcp.url, {
    store,
    onAuthorizationUrl: async () => {
      throw new Error('no consent expected');
    },
  });
  await second.connect();
  assert.equal(textOf(await second.callTool({ name: 'echo', arguments: { text: 'again' } })), 'again');
  const seen = mcp.requests.slice(before);
  assert.ok(seen.length > 0);
  assert.ok(
    seen.every((r) => r.path === '/mcp' && String(r.headers.authorization).startsWith('Bearer ')),
    `every request of the second Client carries the token, none asks for metadata: ${seen.map((r) => `${r.method} ${r.path} ${r.headers.authorization ? 'token' : 'none'}`).join(', ')}`,
  );
  assert.deepEqual(refusals, ['no token'], 'only the first Client ever met a 401');
  assert.equal(as.requests.length, asBefore, 'the authorization server was not asked again');
});
