import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inCommandWords, poolMessage } from '../../src/cli/messages.js';
import { FileTokenStore, MemoryTokenStore, Secret } from '../../src/index.js';
import { call, headlessConsent, provider } from '../helpers/auth.js';
import { authError, paths, setup } from '../helpers/auth-setup.js';
import { temporaryDirectory } from '../helpers/fixtures.js';

test('a hundred concurrent first requests cause one authorization', async () => {
  const { auth, rs } = await setup();
  let consents = 0;
  const p = provider(rs.url, {
    onAuthorizationUrl: (url) => {
      consents++;
      return headlessConsent(url);
    },
  });
  const answers = await Promise.all(Array.from({ length: 100 }, () => call(p, rs.url)));
  assert.ok(answers.every((answer) => answer.status === 200));
  assert.equal(consents, 1);
  assert.equal(auth.tokenRequests().length, 1);
  assert.equal(paths(auth).filter((p) => p === '/register').length, 1);
});

test('expiry under load: a hundred concurrent requests with a due token cause one refresh, and the new refresh token is kept', async () => {
  const { auth, rs } = await setup({ expiresIn: 1 });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  assert.equal((await call(p, rs.url)).status, 200);
  await sleep(1000); // refreshAt is 0.9 s after issue
  const answers = await Promise.all(Array.from({ length: 100 }, () => call(p, rs.url)));
  assert.ok(answers.every((answer) => answer.status === 200));
  assert.equal(auth.tokenRequests('refresh_token').length, 1);
  assert.equal(auth.tokenRequests('authorization_code').length, 1);
  const refreshRequest = auth.tokenRequests('refresh_token')[0]!;
  assert.equal(refreshRequest.form.get('resource'), rs.url.href);
  await sleep(1000);
  assert.equal((await call(p, rs.url)).status, 200); // the rotated refresh token works
  assert.equal(auth.tokenRequests('refresh_token').length, 2);
});

test('a revoked refresh token: the stale tokens are dropped and the user is asked again', async () => {
  const { auth, rs } = await setup({ expiresIn: 1 });
  const store = new MemoryTokenStore();
  let consents = 0;
  const p = provider(rs.url, {
    store,
    onAuthorizationUrl: (url) => {
      consents++;
      return headlessConsent(url);
    },
  });
  assert.equal((await call(p, rs.url)).status, 200);
  auth.revokeRefreshTokens();
  await sleep(1000);
  assert.equal((await call(p, rs.url)).status, 200);
  assert.equal(consents, 2);
  assert.equal(auth.tokenRequests('refresh_token').length, 1);
  assert.equal(auth.tokenRequests('authorization_code').length, 2);
});

test('a refresh refused for another reason is an AuthError with step refresh', async () => {
  const { auth, rs } = await setup({ expiresIn: 1 });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  assert.equal((await call(p, rs.url)).status, 200);
  auth.options.tokenError = { error: 'temporarily_unavailable', error_description: 'try later' };
  await sleep(1000);
  const error = await authError(call(p, rs.url));
  assert.equal(error.step, 'refresh');
  assert.equal(error.error, 'temporarily_unavailable');
});

test('a FileTokenStore shared by two clients: the second uses the first one\u2019s token; the file is 0600 and replaced atomically', async () => {
  const { auth, rs } = await setup();
  const directory = temporaryDirectory();
  const file = path.join(directory, 'nested', 'tokens.json');
  const first = provider(rs.url, { onAuthorizationUrl: headlessConsent, store: new FileTokenStore(file) });
  assert.equal((await call(first, rs.url)).status, 200);
  let asked = false;
  const second = provider(rs.url, {
    store: new FileTokenStore(file),
    onAuthorizationUrl: async (url) => {
      asked = true;
      return headlessConsent(url);
    },
  });
  assert.equal((await call(second, rs.url)).status, 200);
  assert.equal(asked, false);
  assert.equal(auth.tokenRequests().length, 1);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(path.dirname(file)), ['tokens.json']);
  const contents = JSON.parse(readFileSync(file, 'utf8')) as {
    version: number;
    entries: Record<string, { kind: string }>;
  };
  assert.equal(contents.version, 1);
  assert.deepEqual(
    Object.values(contents.entries)
      .map((e) => e.kind)
      .sort(),
    ['client', 'resource', 'tokens'],
  );
});

test('FileTokenStore: concurrent writes from one store all land', async () => {
  const file = path.join(temporaryDirectory(), 'tokens.json');
  const store = new FileTokenStore(file);
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      store.set(`k${i}`, { kind: 'tokens', issuer: 'https://as', accessToken: `a${i}`, tokenType: 'Bearer' }),
    ),
  );
  for (let i = 0; i < 20; i++) assert.equal((await store.get(`k${i}`))?.kind, 'tokens');
  await store.delete('k3');
  assert.equal(await store.get('k3'), undefined);
  assert.throws(() => new FileTokenStore('relative.json'), /absolute file path/);
});

test('the loopback listener times out, says so, and is closed', async () => {
  const { auth, rs } = await setup();
  let redirectUri = '';
  const p = provider(rs.url, {
    authorizationTimeout: 400,
    onAuthorizationUrl: async (url) => {
      redirectUri = url.searchParams.get('redirect_uri')!;
    },
  });
  const started = Date.now();
  const error = await authError(call(p, rs.url));
  assert.ok(Date.now() - started >= 390);
  assert.equal(error.step, 'authorization');
  assert.match(
    error.message,
    /no authorization came back within 400 ms; the listener on 127\.0\.0\.1:\d+ was closed/,
  );
  await assert.rejects(fetch(redirectUri), /fetch failed/);
  assert.equal(auth.tokenRequests().length, 0);
});

test("the command words the listener's time-out in its own terms: no library option it has no flag for", async () => {
  const { rs } = await setup();
  const p = provider(rs.url, { authorizationTimeout: 200, onAuthorizationUrl: async () => {} });
  const error = await authError(call(p, rs.url));
  assert.match(error.message, /authorizationTimeout/, 'the library names its option');
  for (const words of [inCommandWords(error.message, { name: 'docs' }), poolMessage(error.message, 'docs')]) {
    assert.doesNotMatch(words, /authorizationTimeout/);
    assert.match(
      words,
      /no authorization came back within 200 ms; .*run the command again to get a new authorization URL/,
    );
  }
});

test('the loopback listener ignores a callback with another state and keeps waiting', async () => {
  const { rs } = await setup();
  const p = provider(rs.url, {
    onAuthorizationUrl: async (url) => {
      const redirect = new URL(url.searchParams.get('redirect_uri')!);
      redirect.searchParams.set('state', 'forged');
      redirect.searchParams.set('code', 'forged');
      const stray = await fetch(redirect);
      assert.equal(stray.status, 400);
      await stray.text();
      const response = await fetch(url, { redirect: 'follow' });
      await response.text();
      return undefined;
    },
  });
  assert.equal((await call(p, rs.url)).status, 200);
});

test('a server that answers 401 forever: bounded attempts, then a typed error', async () => {
  const { auth, rs } = await setup({}, { forever401: true });
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent });
  const error = await authError(call(p, rs.url));
  assert.equal(error.step, 'authorization');
  assert.equal(error.status, 401);
  assert.match(error.message, /still answers 401 after 3 authorizations/);
  assert.equal(rs.seen.length, 4);
  assert.equal(auth.tokenRequests().length, 3);
});

test('client_credentials with client_secret_basic, client_secret_post and private_key_jwt (RSA and EC keys)', async () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cases = [
    { method: 'client_secret_basic', secret: 'cc-secret-basic' },
    { method: 'client_secret_post', secret: 'cc-secret-post' },
    { method: 'private_key_jwt', key: rsa },
    { method: 'private_key_jwt', key: ec },
  ];
  for (const c of cases) {
    const publicKeyPem = c.key?.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const { auth, rs } = await setup(
      {
        authMethods: [c.method],
        registration: false,
        clients: [
          {
            id: 'machine',
            method: c.method,
            ...(c.secret ? { secret: c.secret } : {}),
            ...(publicKeyPem ? { publicKeyPem } : {}),
          },
        ],
      },
      { challengeScope: 'mcp:basic' },
    );
    const p = provider(rs.url, {
      grant: 'client_credentials',
      clientId: 'machine',
      ...(c.secret ? { clientSecret: new Secret(c.secret) } : {}),
      ...(c.key
        ? { privateKey: new Secret(c.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) }
        : {}),
    });
    assert.equal((await call(p, rs.url)).status, 200, c.method);
    const [request] = auth.tokenRequests('client_credentials');
    assert.ok(request, c.method);
    assert.equal(request.form.get('resource'), rs.url.href);
    assert.equal(request.form.get('scope'), 'mcp:basic');
    assert.ok(!paths(auth).includes('/authorize'));
  }
});

test('client_credentials: a due token is renewed before the request, once for a hundred concurrent ones, with the same scope', async () => {
  const { auth, rs } = await setup(
    {
      expiresIn: 1,
      authMethods: ['client_secret_basic'],
      registration: false,
      clients: [{ id: 'machine', method: 'client_secret_basic', secret: 'cc-renew' }],
    },
    { challengeScope: 'mcp:basic' },
  );
  const p = provider(rs.url, {
    grant: 'client_credentials',
    clientId: 'machine',
    clientSecret: new Secret('cc-renew'),
  });
  assert.equal((await call(p, rs.url)).status, 200);
  const first = await p.authorizationHeader();
  await sleep(1000); // refreshAt is 0.9 s after issue
  const answers = await Promise.all(Array.from({ length: 100 }, () => call(p, rs.url)));
  assert.ok(answers.every((answer) => answer.status === 200));
  const requests = auth.tokenRequests('client_credentials');
  assert.equal(requests.length, 2, 'one renewal, before any request was refused');
  assert.equal(requests[1]!.form.get('scope'), 'mcp:basic');
  assert.notEqual(await p.authorizationHeader(), first);
});

test('client_credentials: a wrong secret is an AuthError with the server error, never the secret', async () => {
  const { rs } = await setup({
    authMethods: ['client_secret_basic'],
    registration: false,
    clients: [{ id: 'machine', method: 'client_secret_basic', secret: 'right-secret' }],
  });
  const p = provider(rs.url, {
    grant: 'client_credentials',
    clientId: 'machine',
    clientSecret: new Secret('wrong-secret-value'),
  });
  const error = await authError(call(p, rs.url));
  assert.equal(error.step, 'token');
  assert.equal(error.error, 'invalid_client');
  assert.ok(!JSON.stringify({ ...error, message: error.message }).includes('wrong-secret-value'));
});

test('client_secret_basic form-encodes id and secret (RFC 6749 §2.3.1) and leaves - . _ alone', async () => {
  const { auth, rs } = await setup({
    authMethods: ['client_secret_basic'],
    registration: false,
    clients: [{ id: 'machine-1.a_b', method: 'client_secret_basic', secret: 'sec ret/x~' }],
  });
  const p = provider(rs.url, {
    grant: 'client_credentials',
    clientId: 'machine-1.a_b',
    clientSecret: new Secret('sec ret/x~'),
  });
  assert.equal((await call(p, rs.url)).status, 200);
  const header = auth.tokenRequests('client_credentials')[0]!.authorization!;
  // A server that does not decode still sees the plain id; the space and slash are encoded.
  assert.equal(Buffer.from(header.slice(6), 'base64').toString(), 'machine-1.a_b:sec+ret%2Fx%7E');
});
