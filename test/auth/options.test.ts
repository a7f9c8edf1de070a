import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bearerChallenge, parseChallenges, unionScopes } from '../../src/auth/challenge.js';
import { authorizationServerMetadataUrls, protectedResourceMetadataUrls } from '../../src/auth/discovery.js';
import { resolveOAuthOptions } from '../../src/auth/options.js';
import { ConfigError, isSecret, Secret } from '../../src/index.js';

test('WWW-Authenticate: several challenges, quoted strings with escapes, case-insensitive names', () => {
  const header =
    'DPoP algs="ES256", BEARER Resource_Metadata="https://rs.example/.well-known/oauth-protected-resource/mcp", scope="mcp:basic  mcp:read", error="insufficient_scope", error_description="needs \\"write\\""';
  const challenges = parseChallenges(header);
  assert.deepEqual(
    challenges.map((c) => c.scheme),
    ['dpop', 'bearer'],
  );
  assert.deepEqual(bearerChallenge(header), {
    resourceMetadata: 'https://rs.example/.well-known/oauth-protected-resource/mcp',
    scope: ['mcp:basic', 'mcp:read'],
    error: 'insufficient_scope',
    errorDescription: 'needs "write"',
  });
  assert.deepEqual(bearerChallenge(['Basic realm="x"', 'Bearer scope=read']), { scope: ['read'] });
  assert.deepEqual(bearerChallenge('Bearer'), {});
  assert.equal(bearerChallenge('Basic realm="x"'), undefined);
  assert.equal(bearerChallenge(undefined), undefined);
  assert.deepEqual(
    parseChallenges('Negotiate abc123==, Bearer realm="r"').map((c) => c.scheme),
    ['negotiate', 'bearer'],
  );
  assert.deepEqual(unionScopes(['a', 'b'], ['b', 'c']), ['a', 'b', 'c']);
});

test('well-known URLs in the spec order', () => {
  assert.deepEqual(protectedResourceMetadataUrls(new URL('https://example.com/public/mcp')).map(String), [
    'https://example.com/.well-known/oauth-protected-resource/public/mcp',
    'https://example.com/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(protectedResourceMetadataUrls(new URL('https://example.com/')).map(String), [
    'https://example.com/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(authorizationServerMetadataUrls('https://auth.example.com/tenant1').map(String), [
    'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
    'https://auth.example.com/.well-known/openid-configuration/tenant1',
    'https://auth.example.com/tenant1/.well-known/openid-configuration',
  ]);
  assert.deepEqual(authorizationServerMetadataUrls('https://auth.example.com').map(String), [
    'https://auth.example.com/.well-known/oauth-authorization-server',
    'https://auth.example.com/.well-known/openid-configuration',
  ]);
});

test('auth options: defaults, Secrets, and a ConfigError naming the key', () => {
  const resolved = resolveOAuthOptions({ clientId: 'c', clientSecret: 'plain' }, 'transport.auth');
  assert.equal(resolved.grant, 'authorization_code');
  assert.equal(resolved.authorizationTimeout, 300_000);
  assert.ok(isSecret(resolved.clientSecret));
  const cases: Array<[unknown, string, RegExp]> = [
    [{ clientSecret: new Secret('x') }, 'transport.auth.clientSecret', /needs transport\.auth\.clientId/],
    [
      { grant: 'client_credentials', clientId: 'c' },
      'transport.auth.clientSecret',
      /needs transport\.auth\.clientId and either/,
    ],
    [
      { grant: 'password' },
      'transport.auth.grant',
      /'authorization_code', 'client_credentials', 'jwt_bearer' or 'enterprise'/,
    ],
    [{ dpop: 'yes' }, 'transport.auth.dpop', /must be true or false/],
    [
      { grant: 'enterprise', clientId: 'c' },
      'transport.auth.idToken',
      /'enterprise' needs transport\.auth\.idToken/,
    ],
    [
      { grant: 'enterprise', clientId: 'c', idToken: () => 'id' },
      'transport.auth.idpTokenEndpoint',
      /needs transport\.auth\.idpTokenEndpoint: the identity provider's token endpoint \(or auth\.idpIssuer/,
    ],
    [
      { grant: 'enterprise', clientId: 'c', idToken: () => 'id', idpIssuer: 'https://idp.example' },
      'transport.auth.idpClientId',
      /needs transport\.auth\.idpClientId/,
    ],
    [
      { grant: 'enterprise', idToken: () => 'id', idpIssuer: 'https://idp.example', idpClientId: 'i' },
      'transport.auth.clientId',
      /needs transport\.auth\.clientId/,
    ],
    [
      { idpClientId: 'i' },
      'transport.auth.idpClientId',
      /only used with transport\.auth\.grant 'enterprise'/,
    ],
    [
      {
        grant: 'enterprise',
        clientId: 'c',
        idToken: 'x',
        idpTokenEndpoint: 'ftp://idp/token',
        idpClientId: 'i',
      },
      'transport.auth.idpTokenEndpoint',
      /must use http: or https:/,
    ],
    [{ grant: 'jwt_bearer' }, 'transport.auth.assertion', /'jwt_bearer' needs transport\.auth\.assertion/],
    [
      { grant: 'client_credentials', clientId: 'c', clientSecret: 's', assertion: 'jwt' },
      'transport.auth.assertion',
      /only used with transport\.auth\.grant 'jwt_bearer'/,
    ],
    [{ grant: 'jwt_bearer', assertion: 42 }, 'transport.auth.assertion', /must be a Secret/],
    [
      { clientMetadataUrl: 'http://app.example.com/c.json' },
      'transport.auth.clientMetadataUrl',
      /must use https:/,
    ],
    [{ clientMetadataUrl: 'https://app.example.com/' }, 'transport.auth.clientMetadataUrl', /with a path/],
    [{ scopes: ['a b'] }, 'transport.auth.scopes', /scope names/],
    [{ store: {} }, 'transport.auth.store', /TokenStore/],
    [{ onAuthorizationUrl: 'open' }, 'transport.auth.onAuthorizationUrl', /must be a function/],
    [{ client_id: 'c' }, 'transport.auth.client_id', /did you mean transport\.auth\.clientId/],
    [{ authorizationTimeout: 0 }, 'transport.auth.authorizationTimeout', /integer >= 1 \(ms\)/],
  ];
  for (const [input, key, message] of cases) {
    assert.throws(
      () => resolveOAuthOptions(input, 'transport.auth'),
      (error: unknown) => error instanceof ConfigError && error.key === key && message.test(error.message),
      key,
    );
  }
});

test('oauth4webapi is loaded only when auth runs: no module of src imports it at run time but the loader', () => {
  const root = path.resolve(import.meta.dirname, '../../src');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const loaders: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(root, file), 'utf8');
    for (const line of source.split('\n')) {
      if (!line.includes("'oauth4webapi'")) continue;
      if (/^import type .* from 'oauth4webapi';$/.test(line) || /typeof import\('oauth4webapi'\)/.test(line))
        continue;
      loaders.push(`${file}: ${line.trim()}`);
    }
  }
  assert.deepEqual(loaders, ["auth/http.ts: loading ??= import('oauth4webapi');"]);
  const index = readFileSync(path.join(root, 'index.ts'), 'utf8');
  assert.ok(
    !/auth\/(provider|http|discovery|grants|authorize)\.js/.test(index),
    'index.ts must not pull the flow in',
  );
});

test('a failed OAuth flow is a permanent failure: the supervisor does not connect again (and ask the user again)', async () => {
  const { isPermanentFailure } = await import('../../src/client/supervisor.js');
  const { AuthError } = await import('../../src/index.js');
  assert.equal(isPermanentFailure(new AuthError('authorization', 'refused')), true);
});
