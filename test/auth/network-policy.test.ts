// SSRF (HTTP digest §7 item 58) and server-supplied URLs (item 59): a server cannot point our OAuth
// requests at loopback, private or link-local addresses unless the host allows it; the endpoint's
// own origin, which the user chose, always may be asked, and an endpoint that is itself on loopback
// may use other loopback hosts (never the private or link-local ranges).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AuthContext, checkOAuthUrl } from '../../src/auth/http.js';
import {
  isLoopbackName,
  isPrivateAddress,
  oauthFetch,
  PrivateAddressError,
  publicOnlyLookup,
  publicOrLoopbackLookup,
} from '../../src/auth/network-policy.js';
import { AuthError } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { startProtectedResource } from '../fixtures/auth/protected-resource.js';
import { call, headlessConsent, provider } from '../helpers/auth.js';
import { authError, closeLater, sameOriginSetup, setup } from '../helpers/auth-setup.js';
import { plainServer } from '../helpers/http.js';

test('private, loopback and link-local addresses, IPv4, IPv6 and IPv4-mapped, are recognised', () => {
  for (const address of [
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '127.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:c0a8:1',
  ]) {
    assert.equal(isPrivateAddress(address), true, address);
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', 'example.com']) {
    assert.equal(isPrivateAddress(address), false, address);
  }
});

test('a loopback endpoint may use an authorization server on another loopback port (a local setup); the flow completes', async () => {
  const { auth, rs } = await setup();
  const response = await call(
    provider(rs.url, { onAuthorizationUrl: headlessConsent, allowPrivateNetwork: false }),
    rs.url,
  );
  assert.equal(response.status, 200);
  assert.ok(auth.requests.length > 0, 'the loopback authorization server was asked');
});

test('from an endpoint that is not loopback, loopback and private OAuth URLs are refused before any connection', () => {
  const context: AuthContext = {
    server: 'remote',
    requestTimeout: 1_000,
    secrets: new Set<string>(),
    fetch: oauthFetch(false, 'https://mcp.example.com'),
    allowPrivateNetwork: false,
    endpointOrigin: 'https://mcp.example.com',
  };
  for (const target of [
    'http://127.0.0.1:9/as',
    'https://localhost/as',
    'https://[::1]/as',
    'https://10.1.2.3/as',
  ]) {
    assert.throws(
      () => checkOAuthUrl(target, 'authorization server', 'discovery', context),
      (error: unknown) =>
        error instanceof AuthError &&
        /loopback, private or link-local address; .*allowPrivateNetwork: true/.test(error.message),
      target,
    );
  }
  assert.equal(
    checkOAuthUrl('https://auth.example.com/as', 'authorization server', 'discovery', context).host,
    'auth.example.com',
  );
  // With the allowance, the host's own decision, the same URL passes.
  assert.equal(
    checkOAuthUrl('http://127.0.0.1:9/as', 'authorization server', 'discovery', {
      ...context,
      allowPrivateNetwork: true,
    }).port,
    '9',
  );
  assert.equal(isLoopbackName('sub.localhost'), true);
  assert.equal(isLoopbackName('::ffff:127.0.0.1'), true);
  assert.equal(isLoopbackName('10.0.0.1'), false);
});

for (const target of [
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.7/prm',
  'https://[fd00::1]/prm',
  'https://[::ffff:192.168.0.1]/prm',
]) {
  test(`a challenge whose resource_metadata is ${target} is refused before any connection, even from a loopback endpoint`, async () => {
    const auth = await startAuthServer();
    closeLater(auth.close);
    const rs = await startProtectedResource({
      prm: 'header',
      resourceMetadataUrl: target,
      authorizationServers: () => [auth.issuer],
      validate: () => undefined,
    });
    closeLater(rs.close);
    const p = provider(rs.url, {
      onAuthorizationUrl: headlessConsent,
      allowPrivateNetwork: false,
      requestTimeout: 60_000,
    });
    const started = Date.now();
    const error = await authError(call(p, rs.url));
    assert.match(error.message, /resource_metadata: .* is a loopback, private or link-local address/);
    assert.ok(Date.now() - started < 10_000, 'refused, not timed out');
  });
}

test('the connection-time check: a name that resolves to a private address is refused by the lookup, nothing is sent', async () => {
  const server = await plainServer((_, res) => void res.writeHead(200).end('{}'));
  closeLater(server.close);
  const port = new URL(server.origin).port;
  const error = await oauthFetch(false)(`http://localhost:${port}/x`, { method: 'GET' }).then(
    () => assert.fail('fetched'),
    (reason: Error) => reason,
  );
  assert.ok(error.cause instanceof PrivateAddressError, String(error.cause));
  assert.equal(server.seen.length, 0);
  // The lookup itself, as net.connect calls it.
  const refused = await new Promise<Error | null>((resolve) =>
    publicOnlyLookup('localhost', { all: true }, (e) => resolve(e)),
  );
  assert.ok(refused instanceof PrivateAddressError);
  // The loopback variant (for a loopback endpoint) lets localhost through.
  const allowed = await new Promise<Error | null>((resolve) =>
    publicOrLoopbackLookup('localhost', { all: true }, (e) => resolve(e)),
  );
  assert.equal(allowed, null);
  // Allowed, the same request goes through.
  assert.equal((await oauthFetch(true)(`http://localhost:${port}/x`, { method: 'GET' })).status, 200);
});

test('the endpoint\u2019s own origin is never refused: a local server that is its own authorization server works without the allowance', async () => {
  const { rs } = await sameOriginSetup();
  const p = provider(rs.url, { onAuthorizationUrl: headlessConsent, allowPrivateNetwork: false });
  assert.equal((await call(p, rs.url)).status, 200);
});

for (const [what, endpoint] of [
  ['a javascript: URL', 'javascript:alert(1)'],
  ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
  ['a file: URL', 'file:///etc/passwd'],
  ['credentials in the URL', 'https://user:pass@auth.example.com/authorize'],
] as const) {
  test(`an authorization_endpoint that is ${what} is refused; the user is never shown it`, async () => {
    const { rs } = await setup({ metadataOverrides: { authorization_endpoint: endpoint } });
    let shown = 0;
    const p = provider(rs.url, {
      onAuthorizationUrl: (url) => {
        shown++;
        return headlessConsent(url);
      },
    });
    const error = await authError(call(p, rs.url));
    assert.equal(error.step, 'discovery');
    assert.match(error.message, /authorization_endpoint/);
    assert.equal(shown, 0);
  });
}
