// DPoP (RFC 9449, SEP-1932) against oidc-provider with its dpop feature on: the token it issues
// is bound to the client's key, and the MCP server in front (test/fixtures/auth/jwt-guard.ts with
// the WebCrypto check of dpop-proof.ts) takes it only as `Authorization: DPoP` with a fresh,
// valid proof of that key, and, when configured so, only with its nonce.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chooseDPoPAlgorithm } from '../../src/auth/dpop.js';
import { AuthError, FileTokenStore, MemoryTokenStore, type StoredTokens } from '../../src/index.js';
import { browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, textOf } from '../helpers/auth-oidc.js';

const proofs = (requests: { path: string; headers: Record<string, unknown> }[]) =>
  requests.filter((r) => r.path === '/mcp' && r.headers.dpop).map((r) => String(r.headers.dpop));

const jti = (proof: string) =>
  (JSON.parse(Buffer.from(proof.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;

test('oidc-provider with DPoP: a DPoP-bound token, sent as DPoP with a fresh proof of the stored key on every request', async () => {
  const { as, mcp, refusals, authorizations } = await oidcScene({ dpop: 'on' });
  const store = new MemoryTokenStore();
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser(), store });
  await client.connect();
  for (const text of ['one', 'two', 'three'])
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text } })), text);
  const stored = (await store.get(`tokens ${as.issuer} ${mcp.url}`)) as StoredTokens;
  assert.equal(stored.tokenType, 'DPoP');
  assert.equal(stored.dpopKey?.alg, 'ES256', 'ES256, the first of what oidc-provider lists');
  assert.deepEqual(refusals, ['no token'], 'every proof after the authorization was accepted');
  const sent = authorizations().filter(Boolean);
  assert.ok(sent.length >= 4 && sent.every((value) => value.startsWith('DPoP ')), sent.join('\n'));
  const all = proofs(mcp.requests);
  assert.equal(new Set(all.map(jti)).size, all.length, 'a new jti in every proof');
  assert.equal(as.issued('authorization_code'), 1);
});

test('a proof replayed, a token without its proof, or the token as Bearer: the resource server refuses each', async () => {
  const { mcp, refusals } = await oidcScene({ dpop: 'on' });
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser() });
  await client.connect();
  const last = mcp.requests.filter((r) => r.path === '/mcp' && r.headers.dpop).at(-1)!;
  const token = String(last.headers.authorization).slice(5);
  const send = (headers: Record<string, string>) =>
    fetch(mcp.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    }).then((response) => response.status);
  assert.equal(await send({ authorization: `DPoP ${token}`, dpop: String(last.headers.dpop) }), 401);
  assert.equal(await send({ authorization: `DPoP ${token}` }), 401);
  assert.equal(await send({ authorization: `Bearer ${token}` }), 401);
  assert.deepEqual(refusals.slice(-3), ['replayed proof (jti seen)', 'no DPoP proof', 'no token']);
});

test('a same-origin redirect gets a proof of its own: the new URL as htu, a new jti', async () => {
  const { mcp, refusals } = await oidcScene({ dpop: 'on', redirect: '/mcp/moved' });
  const client = oidcClient(`${mcp.origin}/mcp/moved`, { onAuthorizationUrl: browser() });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'moved' } })), 'moved');
  assert.deepEqual(refusals, ['no token']);
  const hops = mcp.requests.filter((r) => r.path === '/mcp/moved' || r.path === '/mcp');
  assert.ok(
    hops.some((r) => r.path === '/mcp/moved'),
    'the requests went to the old URL first',
  );
});

test('a nonce required at the token endpoint and at the MCP server: each request sent again once, with it', async () => {
  const { as, mcp, refusals } = await oidcScene({ dpop: 'nonce', resource: { nonce: 'resource-nonce-1' } });
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser() });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'n' } })), 'n');
  const tokenAnswers = as.requests.filter((r) => r.path === '/token').map((r) => r.status);
  assert.deepEqual(tokenAnswers, [400, 200], 'use_dpop_nonce, then the same request with the nonce');
  assert.deepEqual(refusals, ['no token', 'use_dpop_nonce'], 'later requests carry the nonce from the start');
});

test('a due token is refreshed with the same key (a DPoP-bound refresh token), and the nonce outlives the refresh', async () => {
  const store = new MemoryTokenStore();
  const { as, mcp, refusals } = await oidcScene({
    dpop: 'on',
    accessTokenTtl: 2,
    resource: { nonce: 'kept' },
  });
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser(), store });
  await client.connect();
  const before = (await store.get(`tokens ${as.issuer} ${mcp.url}`)) as StoredTokens;
  assert.ok(before.refreshToken, 'oidc-provider issued a refresh token');
  await sleep(2100); // the 2 s access token is due
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'later' } })), 'later');
  const after = (await store.get(`tokens ${as.issuer} ${mcp.url}`)) as StoredTokens;
  assert.equal(as.issued('refresh_token'), 1);
  assert.notEqual(after.accessToken, before.accessToken);
  assert.deepEqual(after.dpopKey, before.dpopKey, 'the same key: the refresh token is bound to it');
  assert.equal(after.tokenType, 'DPoP');
  assert.deepEqual(refusals, ['no token', 'use_dpop_nonce'], 'no nonce refusal after the refresh');
});

test('the latest nonce is kept: a server that rotates it after each use costs one retry per request, never more', async () => {
  const { mcp, refusals } = await oidcScene({
    dpop: 'on',
    resource: { nonce: 'first', rotate: 'after-use' },
  });
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser() });
  await client.connect();
  const before = refusals.length;
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'r' } })), 'r');
  assert.deepEqual(refusals.slice(before), ['use_dpop_nonce']);
});

test('a server whose nonce is stale again at the retry: one retry, then an AuthError use_dpop_nonce without the key', async () => {
  const store = new MemoryTokenStore();
  const { as, mcp, refusals } = await oidcScene({
    dpop: 'on',
    resource: { nonce: 'first', rotate: 'after-refusal' },
  });
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser(), store });
  const error = await client.connect().then(
    () => assert.fail('connected'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AuthError, String(error));
  assert.equal(error.error, 'use_dpop_nonce');
  assert.match(error.message, /still asks for a DPoP nonce after one retry/);
  assert.deepEqual(refusals, ['no token', 'use_dpop_nonce', 'use_dpop_nonce']);
  const stored = (await store.get(`tokens ${as.issuer} ${mcp.url}`)) as StoredTokens;
  const d = stored.dpopKey!.privateJwk.d!;
  for (const text of [error.message, JSON.stringify(error), String(error.stack), JSON.stringify(store)])
    assert.ok(!text.includes(d), 'the private key is never in an error or a printed store');
});

test('the key is kept with the tokens in an owner-only token file, once, and a new Client proves it without a new authorization', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'conduit-dpop-'));
  try {
    const file = path.join(directory, 'tokens.json');
    const { as, mcp, refusals } = await oidcScene({ dpop: 'on' });
    const first = oidcClient(mcp.url, { onAuthorizationUrl: browser(), store: new FileTokenStore(file) });
    await first.connect();
    await first.close();
    if (process.platform !== 'win32') assert.equal((await stat(file)).mode & 0o777, 0o600);
    const text = await readFile(file, 'utf8');
    const entry = JSON.parse(text).entries[`tokens ${as.issuer} ${mcp.url}`] as StoredTokens;
    const d = entry.dpopKey!.privateJwk.d!;
    assert.equal(
      text.split(d).length - 1,
      1,
      'the private key is in the file once: the entry the tokens are in',
    );
    assert.equal(entry.dpopKey!.publicJwk.d, undefined);
    const second = oidcClient(mcp.url, {
      store: new FileTokenStore(file),
      onAuthorizationUrl: async () => {
        throw new Error('no consent expected');
      },
    });
    await second.connect();
    assert.equal(textOf(await second.callTool({ name: 'echo', arguments: { text: 'again' } })), 'again');
    assert.deepEqual(refusals, ['no token']);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('the proof algorithm: ES256 where listed, else the first we sign; opt-in without a list; never with dpop: false', () => {
  assert.equal(chooseDPoPAlgorithm(['PS256', 'ES256'], undefined, 'https://as', 's'), 'ES256');
  assert.equal(chooseDPoPAlgorithm(['HS256', 'ES384', 'PS256'], undefined, 'https://as', 's'), 'ES384');
  assert.equal(chooseDPoPAlgorithm(undefined, undefined, 'https://as', 's'), undefined);
  assert.equal(chooseDPoPAlgorithm([], true, 'https://as', 's'), 'ES256');
  assert.equal(chooseDPoPAlgorithm(['ES256'], false, 'https://as', 's'), undefined);
  assert.equal(chooseDPoPAlgorithm(['HS256'], undefined, 'https://as', 's'), undefined);
  assert.throws(
    () => chooseDPoPAlgorithm(['HS256'], true, 'https://as', 's'),
    (error: unknown) =>
      error instanceof AuthError && /only in HS256; this client signs ES256/.test(error.message),
  );
});
