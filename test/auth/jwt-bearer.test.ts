// Workload identity federation through the whole stack: a Client with `grant: 'jwt_bearer'`
// against the official SDK's MCP server protected by the loopback authorization server, which
// accepts the RFC 7523 grant and refuses it with invalid_grant, invalid_scope, unauthorized_client.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError, Client, type OAuthOptions, Secret } from '../../src/index.js';
import { type AuthServerOptions, startAuthServer } from '../fixtures/auth/authorization-server.js';
import { closeLater } from '../helpers/auth-setup.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;
const workloadJwt = () => `eyJ.${randomBytes(16).toString('base64url')}.sig`;

async function serve(options: AuthServerOptions) {
  const auth = await startAuthServer({ registration: false, ...options });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2');
  return { auth, mcp };
}

function workloadClient(url: string, auth: OAuthOptions) {
  const client = new Client({
    name: 'workload',
    transport: { type: 'http', url, auth: { allowPrivateNetwork: true, ...auth } },
    reconnect: { maxReconnects: 0 },
  });
  closeLater(() => client.close());
  return client;
}

test('jwt_bearer: the workload JWT is the assertion, no client needed, the token on every request', async () => {
  const jwt = workloadJwt();
  const { auth, mcp } = await serve({ assertions: [jwt] });
  const client = workloadClient(mcp.server.url, { grant: 'jwt_bearer', assertion: new Secret(jwt) });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'wif' } })), 'wif');
  const [request, ...more] = auth.tokenRequests();
  assert.equal(more.length, 0, 'one token request');
  assert.equal(request!.form.get('grant_type'), JWT_BEARER);
  assert.equal(request!.form.get('assertion'), jwt);
  assert.equal(request!.form.get('resource'), mcp.server.url);
  assert.equal(request!.form.has('client_id'), false, 'no client: the assertion is the identity');
  assert.equal(request!.authorization, undefined);
  assert.equal(auth.requests.filter((r) => r.path === '/authorize' || r.path === '/register').length, 0);
  const token = mcp.authorizations()[1]!;
  assert.match(token, /^Bearer at-/);
  assert.ok(
    mcp
      .authorizations()
      .slice(1)
      .every((header) => header === token),
  );
});

test('jwt_bearer with a pre-registered public client sends its client_id beside the assertion', async () => {
  const jwt = workloadJwt();
  const { auth, mcp } = await serve({ assertions: [jwt], clients: [{ id: 'workload-app', method: 'none' }] });
  const client = workloadClient(mcp.server.url, {
    grant: 'jwt_bearer',
    assertion: jwt,
    clientId: 'workload-app',
    scopes: ['mcp'],
  });
  await client.connect();
  const [request] = auth.tokenRequests(JWT_BEARER);
  assert.equal(request!.form.get('client_id'), 'workload-app');
  assert.equal(request!.form.get('scope'), 'mcp');
});

const refusals: Array<[string, string, Partial<OAuthOptions>]> = [
  ['invalid_grant', 'an assertion the server does not accept', { assertion: new Secret('eyJ.unknown.sig') }],
  ['invalid_scope', 'a scope the server does not permit', { scopes: ['wif.rejected'] }],
  ['unauthorized_client', 'a workload not allowed the grant', { scopes: ['wif.unauthorized'] }],
];
for (const [code, what, options] of refusals) {
  test(`jwt_bearer refused with ${code} (${what}): one AuthError, no retry, no other grant`, async () => {
    const jwt = workloadJwt();
    const { auth, mcp } = await serve({ assertions: [jwt] });
    let reads = 0;
    const client = workloadClient(mcp.server.url, {
      grant: 'jwt_bearer',
      assertion: () => {
        reads++;
        return jwt;
      },
      ...options,
    });
    const error = await client.connect().then(
      () => assert.fail('connected; an AuthError was expected'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof AuthError, String(error));
    assert.equal(error.step, 'token');
    assert.equal(error.error, code);
    assert.match(error.message, /jwt-bearer request/);
    assert.ok(!error.message.includes(jwt), 'the assertion is not in the error');
    assert.equal(auth.tokenRequests().length, 1, 'exactly one token request');
    assert.equal(auth.tokenRequests(JWT_BEARER).length, 1, 'and it is the jwt-bearer grant');
    assert.equal(auth.requests.filter((r) => r.path === '/authorize' || r.path === '/register').length, 0);
    assert.equal(reads, options.assertion ? 0 : 1);
    assert.equal(client.state, 'closed');
  });
}

test('jwt_bearer: a due token is renewed with the assertion read afresh (a rotated workload token)', async () => {
  const rotation = Array.from({ length: 6 }, workloadJwt);
  const { auth, mcp } = await serve({ assertions: rotation, expiresIn: 3 });
  const reads: string[] = [];
  const client = workloadClient(mcp.server.url, {
    grant: 'jwt_bearer',
    assertion: async () => {
      const current = rotation[Math.min(reads.length, rotation.length - 1)]!;
      reads.push(current);
      return current;
    },
  });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'a' } })), 'a');
  const before = reads.length;
  await sleep(3000); // expires_in 3 s, renewed 10% early: the token is due
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })),
  );
  assert.deepEqual(
    results.map(textOf),
    Array.from({ length: 20 }, (_, i) => `n${i}`),
  );
  assert.equal(reads.length, before + 1, 'twenty concurrent requests share one renewal, one read');
  assert.deepEqual(
    auth.tokenRequests().map((r) => [r.form.get('grant_type'), r.form.get('assertion')]),
    reads.map((read) => [JWT_BEARER, read]),
    'each token request carried the assertion just read',
  );
  assert.notEqual(reads.at(-1), reads[0], 'the rotated workload token was used');
  const last = mcp.authorizations().at(-1)!;
  assert.ok(auth.accessTokens.has(last.slice(7)));
  assert.equal(auth.tokenRequests(JWT_BEARER).length, reads.length, 'no other grant');
});
