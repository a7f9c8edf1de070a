import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, headlessConsent, provider } from '../helpers/auth.js';
import { authError, paths, setup } from '../helpers/auth-setup.js';

test('an authorization server that does not advertise PKCE (or not S256) is refused before the user is sent there', async () => {
  for (const methods of [null, ['plain']]) {
    const { auth, rs } = await setup({ codeChallengeMethods: methods });
    const error = await authError(call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url));
    assert.equal(error.step, 'authorization');
    assert.match(error.message, /does not advertise PKCE with S256/);
    assert.ok(!paths(auth).includes('/authorize'));
  }
});

test('RFC 9207: the code is redeemed only when iss checks out', async () => {
  const cases = [
    { issSupported: true, issInRedirect: 'correct', redeemed: true },
    { issSupported: null, issInRedirect: 'omit', redeemed: true },
    { issSupported: true, issInRedirect: 'omit', redeemed: false, why: /has no iss/ },
    { issSupported: true, issInRedirect: 'wrong', redeemed: false, why: /names another issuer/ },
    { issSupported: null, issInRedirect: 'wrong', redeemed: false, why: /names another issuer/ },
    { issSupported: true, issInRedirect: 'normalized', redeemed: false, why: /names another issuer/ },
  ] as const;
  for (const c of cases) {
    const { auth, rs } = await setup({ issSupported: c.issSupported, issInRedirect: c.issInRedirect });
    const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
    const label = `${c.issSupported} ${c.issInRedirect}`;
    if (c.redeemed) {
      assert.equal((await call(p, rs.url)).status, 200, label);
    } else {
      const error = await authError(call(p, rs.url));
      assert.equal(error.step, 'authorization', label);
      assert.match(error.message, c.why, label);
      assert.match(error.message, /the code was not redeemed/, label);
    }
    assert.equal(auth.tokenRequests().length, c.redeemed ? 1 : 0, label);
  }
});

test('a redirect whose state is missing or altered is discarded without a token request', async () => {
  for (const change of ['drop', 'alter'] as const) {
    const { auth, rs } = await setup();
    const p = provider(rs.url, {
      onAuthorizationUrl: async (url) => {
        const landed = new URL(await headlessConsent(url));
        if (change === 'drop') landed.searchParams.delete('state');
        else landed.searchParams.set('state', 'forged');
        return landed;
      },
    });
    const error = await authError(call(p, rs.url));
    assert.match(error.message, change === 'drop' ? /carries no state/ : /another state/);
    assert.equal(auth.tokenRequests().length, 0);
  }
});

test('an error redirect is an AuthError with the server error and error_description', async () => {
  const { rs } = await setup({ authorizeError: 'access_denied' });
  const error = await authError(call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url));
  assert.equal(error.step, 'authorization');
  assert.equal(error.error, 'access_denied');
  assert.equal(error.error_description, 'the user said no');
});

test('a token endpoint error carries the server error fields and step token', async () => {
  const { rs } = await setup({ tokenError: { error: 'invalid_grant', error_description: 'code expired' } });
  const error = await authError(call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url));
  assert.equal(error.step, 'token');
  assert.equal(error.error, 'invalid_grant');
  assert.equal(error.error_description, 'code expired');
  assert.equal(error.status, 400);
});

test('no onAuthorizationUrl: an AuthError saying to set it', async () => {
  const { rs } = await setup();
  const error = await authError(call(provider(rs.url, {}), rs.url));
  assert.equal(error.step, 'authorization');
  assert.match(error.message, /set auth\.onAuthorizationUrl/);
});

test('initial scopes: the challenge, else scopes_supported, else no scope parameter; auth.scopes wins', async () => {
  const cases = [
    { challengeScope: 'mcp:basic', scopesSupported: ['mcp:basic', 'mcp:read'], expected: 'mcp:basic' },
    { scopesSupported: ['mcp:basic', 'mcp:read', 'mcp:write'], expected: 'mcp:basic mcp:read mcp:write' },
    { expected: null },
    { challengeScope: 'mcp:basic', scopes: ['custom'], expected: 'custom' },
  ];
  for (const c of cases) {
    const { auth, rs } = await setup(
      {},
      { challengeScope: c.challengeScope, scopesSupported: c.scopesSupported },
    );
    const p = provider(rs.url, {
      onAuthorizationUrl: headlessConsent,
      ...(c.scopes ? { scopes: c.scopes } : {}),
    });
    assert.equal((await call(p, rs.url)).status, 200);
    assert.equal(auth.requests.find((r) => r.path === '/authorize')!.query.get('scope'), c.expected);
  }
});

test('offline_access is asked for only when the authorization server lists it', async () => {
  for (const listed of [true, false]) {
    const { auth, rs } = await setup(
      { scopesSupported: listed ? ['mcp:basic', 'offline_access'] : ['mcp:basic'] },
      { challengeScope: 'mcp:basic' },
    );
    assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
    const scope = auth.requests.find((r) => r.path === '/authorize')!.query.get('scope');
    assert.equal(scope, listed ? 'mcp:basic offline_access' : 'mcp:basic');
  }
});

test('403 insufficient_scope steps up with the union of the scopes held and asked', async () => {
  const { auth, rs } = await setup({}, { challengeScope: 'mcp:basic' });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  assert.equal((await call(p, rs.url)).status, 200);
  assert.equal((await call(p, rs.url, 'mcp:write')).status, 200);
  const scopes = auth.requests.filter((r) => r.path === '/authorize').map((r) => r.query.get('scope'));
  assert.deepEqual(scopes, ['mcp:basic', 'mcp:basic mcp:write']);
});

test('a 403 that never clears: at most three authorizations, then a typed error', async () => {
  const { auth, rs } = await setup({ grantOnly: ['mcp:basic'] }, { challengeScope: 'mcp:basic' });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  const error = await authError(call(p, rs.url, 'mcp:write'));
  assert.equal(error.step, 'authorization');
  assert.equal(error.status, 403);
  assert.equal(error.error, 'insufficient_scope');
  assert.match(error.message, /after 3 authorization attempts/);
  assert.equal(auth.requests.filter((r) => r.path === '/authorize').length, 3);
  // A second request for the same scopes gives up without sending the user again.
  const before = auth.requests.filter((r) => r.path === '/authorize').length;
  await authError(call(p, rs.url, 'mcp:write'));
  assert.ok(auth.requests.filter((r) => r.path === '/authorize').length <= Math.max(before, 3));
});

test('a 403 without insufficient_scope is not an authorization matter: it is passed through', async () => {
  const { rs } = await setup();
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  const verdict = await p.onChallenge({
    status: 403,
    wwwAuthenticate: undefined,
    sentAuthorization: undefined,
    attempt: 0,
  });
  assert.equal(verdict, 'pass');
});
