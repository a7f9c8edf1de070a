import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AuthError } from '../../src/index.js';
import {
  type AuthServer,
  type AuthServerOptions,
  startAuthServer,
} from '../fixtures/auth/authorization-server.js';
import { type ResourceOptions, startProtectedResource } from '../fixtures/auth/protected-resource.js';
import { browserConsent, call, headlessConsent, provider } from '../helpers/auth.js';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function setup(as: AuthServerOptions = {}, resource: Partial<ResourceOptions> = {}) {
  const auth = await startAuthServer(as);
  const rs = await startProtectedResource({
    prm: 'header',
    authorizationServers: () => [auth.issuer],
    validate: (token) => auth.accessTokens.get(token)?.scope,
    ...resource,
  });
  closers.push(auth.close, rs.close);
  return { auth, rs };
}

function paths(auth: AuthServer): string[] {
  return auth.requests.map((r) => r.path);
}

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
