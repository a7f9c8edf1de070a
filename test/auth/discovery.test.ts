import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type AuthError, MemoryTokenStore, Secret } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { startProtectedResource } from '../fixtures/auth/protected-resource.js';
import { browserConsent, call, headlessConsent, provider } from '../helpers/auth.js';
import { authError, closeLater, paths, sameOriginSetup, setup } from '../helpers/auth-setup.js';

async function rejectsAuth(promise: Promise<unknown>, step: string, pattern: RegExp): Promise<AuthError> {
  const error = await authError(promise);
  assert.equal(error.step, step);
  assert.equal(error.code, 'CONDUIT_AUTH');
  assert.match(error.message, pattern);
  return error;
}

/** The PRM URLs tried first (they reach the same origin's handler, which has none). */
const LEGACY_PROBES = ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'];

test('PRM from the challenge, RFC 8414 metadata, DCR, PKCE S256, resource and state: the request succeeds with Bearer', async () => {
  const { auth, rs } = await setup({ scopesSupported: ['mcp:basic'] }, { challengeScope: 'mcp:basic' });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  const answer = await call(p, rs.url);
  assert.equal(answer.status, 200);
  assert.deepEqual(rs.prmRequests, ['/custom/prm']);
  assert.deepEqual(paths(auth), [
    '/.well-known/oauth-authorization-server',
    '/register',
    '/authorize',
    '/token',
  ]);
  const register = auth.requests[1]!.json!;
  assert.equal(register.application_type, 'native');
  assert.deepEqual(register.grant_types, ['authorization_code', 'refresh_token']);
  const authorize = auth.requests[2]!.query;
  assert.equal(authorize.get('code_challenge_method'), 'S256');
  assert.equal(authorize.get('resource'), rs.url.href);
  assert.equal(authorize.get('scope'), 'mcp:basic');
  assert.match(authorize.get('state') ?? '', /^[\w-]{20,}$/);
  assert.equal(auth.requests[3]!.form.get('resource'), rs.url.href);
  assert.equal(rs.seen[0], '');
  assert.equal(rs.seen.at(-1)?.startsWith('Bearer at-'), true);
});

test('the built-in loopback listener catches the redirect on 127.0.0.1 and is closed afterwards', async () => {
  const { auth, rs } = await setup();
  let redirectUri = '';
  const p = provider(rs.url, {
    onAuthorizationUrl: async (url) => {
      redirectUri = url.searchParams.get('redirect_uri')!;
      return browserConsent(url);
    },
  });
  assert.equal((await call(p, rs.url)).status, 200);
  assert.match(redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  await assert.rejects(fetch(redirectUri), /fetch failed/);
  assert.equal(auth.tokenRequests('authorization_code').length, 1);
});

test('no resource_metadata in the challenge: the path-inserted PRM first; AS metadata found by OIDC discovery', async () => {
  const { auth, rs } = await setup({ metadataAt: ['oidc-inserted'] }, { prm: 'path' });
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  assert.deepEqual(rs.prmRequests, ['/.well-known/oauth-protected-resource/mcp']);
  assert.deepEqual(paths(auth).slice(0, 2), [
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ]);
});

test('root PRM (resource = the origin) and an issuer with a path: path-inserted RFC 8414 metadata, the root never asked', async () => {
  const { auth, rs } = await setup({ issuerPath: '/tenant1' }, { prm: 'root' });
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  assert.deepEqual(rs.prmRequests, [
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-protected-resource',
  ]);
  assert.equal(paths(auth)[0], '/.well-known/oauth-authorization-server/tenant1');
  assert.equal(auth.requests.find((r) => r.path === '/authorize')!.query.get('resource'), rs.origin);
});

test('an issuer with a path whose metadata is only at <issuer>/.well-known/openid-configuration: the three URLs in order', async () => {
  const { auth, rs } = await setup({ issuerPath: '/tenant1', metadataAt: ['oidc-appended'] });
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  assert.deepEqual(paths(auth).slice(0, 3), [
    '/.well-known/oauth-authorization-server/tenant1',
    '/.well-known/openid-configuration/tenant1',
    '/tenant1/.well-known/openid-configuration',
  ]);
});

test('metadata claiming another issuer is not used: no registration, authorization or token request', async () => {
  const { auth, rs } = await setup({ metadataIssuer: 'https://attacker.example.com' });
  await rejectsAuth(
    call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url),
    'discovery',
    /names another issuer/,
  );
  assert.deepEqual(paths(auth), [
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ]);
});

test('a PRM whose resource is another origin stops the flow before any authorization', async () => {
  const { auth, rs } = await setup({}, { resource: 'https://evil.example.com/mcp' });
  await rejectsAuth(
    call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url),
    'discovery',
    /is for https:\/\/evil\.example\.com\/mcp/,
  );
  assert.deepEqual(paths(auth), []);
});

test('a PRM without resource is refused like one naming another resource, before any authorization', async () => {
  const { auth, rs } = await setup({}, { resource: null });
  await rejectsAuth(
    call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url),
    'discovery',
    /has no resource \(RFC 9728 requires it\)/,
  );
  assert.deepEqual(paths(auth), []);
});

test('a PRM URL that redirects to a foreign origin is not followed', async () => {
  let foreignHits = 0;
  const foreign = createServer((_, response) => {
    foreignHits++;
    response.end('{}');
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  const foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/prm`;
  const redirector = createServer((_, response) => {
    response.writeHead(302, { location: foreignUrl }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  closeLater(async () => {
    foreign.close();
    foreign.closeAllConnections();
    redirector.close();
    redirector.closeAllConnections();
  });
  const { auth, rs } = await setup(
    {},
    { resourceMetadataUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/prm` },
  );
  await rejectsAuth(
    call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url),
    'discovery',
    /was redirected \(302\) to http:\/\/127\.0\.0\.1/,
  );
  assert.equal(foreignHits, 0);
  assert.deepEqual(paths(auth), []);
});

test('2025-03-26: no PRM; metadata at the MCP origin is used', async () => {
  const { auth, rs } = await sameOriginSetup();
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  assert.deepEqual(paths(auth), [
    ...LEGACY_PROBES,
    '/.well-known/oauth-authorization-server',
    '/register',
    '/authorize',
    '/token',
  ]);
});

test('2025-03-26: no PRM and no metadata; the default /register, /authorize and /token of the MCP origin', async () => {
  const { auth, rs } = await sameOriginSetup({ metadataAt: [] });
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  assert.deepEqual(paths(auth), [
    ...LEGACY_PROBES,
    '/.well-known/oauth-authorization-server',
    '/register',
    '/authorize',
    '/token',
  ]);
  assert.equal(auth.requests[2]!.authorization, undefined);
});

test('a pre-registered client (secret as a Secret) is used with client_secret_basic; no registration', async () => {
  const { auth, rs } = await setup({
    registration: false,
    authMethods: ['client_secret_basic'],
    clients: [{ id: 'pre-1', secret: 'pre-secret-value', method: 'client_secret_basic' }],
  });
  const p = provider(rs.url, {
    onAuthorizationUrl: headlessConsent,
    clientId: 'pre-1',
    clientSecret: new Secret('pre-secret-value'),
  });
  assert.equal((await call(p, rs.url)).status, 200);
  assert.ok(!paths(auth).includes('/register'));
  const token = auth.tokenRequests('authorization_code')[0]!;
  const [id, secret] = Buffer.from(token.authorization!.slice(6), 'base64')
    .toString()
    .split(':')
    .map(decodeURIComponent);
  assert.deepEqual([id, secret], ['pre-1', 'pre-secret-value']);
});

test('a client ID metadata document is the client_id when the server supports them; no registration', async () => {
  const { auth, rs } = await setup({ cimd: true });
  const clientMetadataUrl = 'https://app.example.com/oauth/client.json';
  assert.equal(
    (await call(provider(rs.url, { onAuthorizationUrl: headlessConsent, clientMetadataUrl }), rs.url)).status,
    200,
  );
  assert.ok(!paths(auth).includes('/register'));
  assert.equal(auth.requests.find((r) => r.path === '/authorize')!.query.get('client_id'), clientMetadataUrl);
});

test('a metadata document URL is not used where the server does not support them: DCR instead', async () => {
  const { auth, rs } = await setup({});
  const p = provider(rs.url, {
    onAuthorizationUrl: headlessConsent,
    clientMetadataUrl: 'https://app.example.com/c.json',
  });
  assert.equal((await call(p, rs.url)).status, 200);
  assert.ok(paths(auth).includes('/register'));
});

test('no way to get a client ID: an AuthError saying what to provide', async () => {
  const { rs } = await setup({ registration: false });
  await rejectsAuth(
    call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url),
    'registration',
    /set auth\.clientId/,
  );
});

test('each token endpoint auth method a registration returns is the one used', async () => {
  for (const method of ['client_secret_basic', 'client_secret_post', 'none']) {
    const { auth, rs } = await setup({ authMethods: [method] });
    assert.equal(
      (await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status,
      200,
      method,
    );
    const token = auth.tokenRequests('authorization_code')[0]!;
    assert.equal(
      token.authorization?.startsWith('Basic ') ?? false,
      method === 'client_secret_basic',
      method,
    );
    assert.equal(token.form.has('client_secret'), method === 'client_secret_post', method);
  }
});

test('a registration is stored per issuer and reused; a new authorization server gets its own, never the old client_id', async () => {
  const first = await startAuthServer({});
  const second = await startAuthServer({});
  let current = first;
  const rs = await startProtectedResource({
    prm: 'header',
    authorizationServers: () => [current.issuer],
    validate: (t) => (current.accessTokens.get(t) ?? undefined)?.scope,
  });
  closeLater(first.close);
  closeLater(second.close);
  closeLater(rs.close);
  const store = new MemoryTokenStore();
  assert.equal(
    (await call(provider(rs.url, { onAuthorizationUrl: headlessConsent, store }), rs.url)).status,
    200,
  );
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent, store });
  first.revokeRefreshTokens();
  first.accessTokens.clear(); // the second client must authorize, but with the stored registration
  assert.equal((await call(p, rs.url)).status, 200);
  assert.equal(first.requests.filter((r) => r.path === '/register').length, 1);
  const firstClientId = first.requests.find((r) => r.path === '/authorize')!.query.get('client_id');
  current = second; // the authorization server migrates
  assert.equal((await call(p, rs.url)).status, 200);
  assert.equal(second.requests.filter((r) => r.path === '/register').length, 1);
  for (const request of second.requests) {
    assert.notEqual(request.query.get('client_id'), firstClientId);
    assert.notEqual(request.form.get('client_id'), firstClientId);
  }
});

test('a pre-registered client is never offered to another authorization server than its issuer', async () => {
  const { auth, rs } = await setup({ registration: false, clients: [{ id: 'pre-2', method: 'none' }] });
  const p = provider(rs.url, {
    onAuthorizationUrl: headlessConsent,
    clientId: 'pre-2',
    issuer: 'https://other.example.com',
  });
  await rejectsAuth(call(p, rs.url), 'registration', /registered with https:\/\/other\.example\.com/);
  assert.ok(!paths(auth).includes('/authorize'));
});

for (const [what, issuer, ok] of [
  [
    'an issuer with a path on the MCP origin is what such servers publish: used',
    (o: string) => `${o}/oauth`,
    true,
  ],
  ['an issuer on another origin: refused', () => 'http://127.0.0.1:9/', false],
] as const) {
  test(`2025-03-26 metadata at the MCP origin's root, ${what}`, async () => {
    // 2025-03-26 predates RFC 9207 in MCP: no iss in the redirect.
    const { auth, rs } = await sameOriginSetup({
      metadataIssuer: issuer,
      issSupported: null,
      issInRedirect: 'omit',
    });
    const answer = call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url);
    if (ok) assert.equal((await answer).status, 200);
    else await rejectsAuth(answer, 'discovery', /issuer/);
    assert.equal(paths(auth).includes('/token'), ok);
  });
}

test('dynamic registration that issues a secret without client_secret_expires_at (RFC 7591 wants it; many servers omit it): the secret never expires', async () => {
  const { auth, rs } = await setup({ authMethods: ['client_secret_basic'], omitSecretExpiry: true });
  assert.equal((await call(provider(rs.url, { onAuthorizationUrl: headlessConsent }), rs.url)).status, 200);
  const token = auth.tokenRequests('authorization_code')[0]!;
  assert.match(token.authorization ?? '', /^Basic /);
});
