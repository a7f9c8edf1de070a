// logout(): the library's way to end a session with a server: RFC 7009 revocation, then the
// stored tokens deleted; against oidc-provider.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logout, MemoryTokenStore } from '../../src/index.js';
import { browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, refreshRefused } from '../helpers/auth-oidc.js';

test('logout() revokes the refresh token and asks to revoke the access token, reports what the server did, then deletes them', async () => {
  const { as, mcp } = await oidcScene();
  const store = new MemoryTokenStore();
  const client = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
  await client.connect();
  await client.close();
  const tokensKey = `tokens ${as.issuer} ${mcp.url}`;
  const stored = await store.get(tokensKey);
  const registration = await store.get(`client ${as.issuer}`);
  assert.ok(stored?.kind === 'tokens' && stored.refreshToken && registration?.kind === 'client');
  assert.equal(
    await refreshRefused(as.issuer, registration.clientId, 'not-a-token', mcp.url),
    'invalid_grant',
  );

  const result = await logout(mcp.url, { store, allowPrivateNetwork: true });
  // oidc-provider revokes only what it stores: its JWT access tokens expire on their own.
  assert.deepEqual(result, {
    issuer: as.issuer,
    revoked: ['refresh_token'],
    notRevoked: [
      {
        token: 'access_token',
        reason:
          'revoking the access token: the authorization server answered unsupported_token_type (Structured JWT Tokens cannot be revoked via the revocation_endpoint)',
      },
    ],
    removed: [tokensKey, `resource ${mcp.url}`],
  });
  assert.deepEqual(
    as.requests.filter((r) => r.path === '/token/revocation').map((r) => r.tokenTypeHint),
    ['refresh_token', 'access_token'],
  );
  assert.equal(await store.get(tokensKey), undefined);
  assert.equal(
    await refreshRefused(as.issuer, registration.clientId, stored.refreshToken, mcp.url),
    'invalid_grant',
  );
  assert.deepEqual(await logout(mcp.url, { store }), {
    issuer: undefined,
    revoked: [],
    notRevoked: [],
    removed: [],
  });
});

test('logout() with the authorization server gone still deletes, and says why nothing was revoked', async () => {
  const { as, mcp } = await oidcScene();
  const store = new MemoryTokenStore();
  const client = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
  await client.connect();
  await client.close();
  await as.close(); // the authorization server is gone
  const result = await logout(mcp.url, { store, allowPrivateNetwork: true, requestTimeout: 5000 });
  assert.deepEqual(result.revoked, []);
  assert.deepEqual(
    result.notRevoked.map((entry) => entry.token),
    ['refresh_token', 'access_token'],
  );
  assert.match(
    result.notRevoked[0]!.reason,
    /^GET http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server failed/,
  );
  assert.equal(await store.get(`tokens ${as.issuer} ${mcp.url}`), undefined);
});
