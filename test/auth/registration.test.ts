// Dynamic client registration at oidc-provider: the application type follows the redirect URI
// (RFC 8252 / OIDC Registration), and a refused redirect URI is reported with the fix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryTokenStore } from '../../src/index.js';
import { consent } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene } from '../helpers/auth-oidc.js';
import { authError } from '../helpers/auth-setup.js';

test("a redirect URI on the web registers a 'web' client, which oidc-provider accepts where a native one is refused", async () => {
  const { as, mcp } = await oidcScene();
  const redirectUrl = 'http://app.example.test/oauth/callback';
  const shown: URL[] = [];
  const client = oidcClient(mcp.url, {
    store: new MemoryTokenStore(),
    redirectUrl,
    onAuthorizationUrl: async (url) => {
      shown.push(url);
      return consent(url); // the app's own page got the redirect and hands it back
    },
  });
  await client.connect();
  assert.equal(shown[0]!.searchParams.get('redirect_uri'), redirectUrl);
  const registered = await as.provider.Client.find(shown[0]!.searchParams.get('client_id')!);
  assert.equal(registered?.applicationType, 'web');
  assert.deepEqual(registered?.redirectUris, [redirectUrl]);
});

test('a redirect URI the server refuses at registration: an AuthError naming it and the option to change', async () => {
  const { as, mcp } = await oidcScene();
  const redirectUrl = 'https://127.0.0.1/callback'; // a native client's loopback redirect must be http (RFC 8252 §7.3)
  let asked = false;
  const client = oidcClient(mcp.url, {
    store: new MemoryTokenStore(),
    redirectUrl,
    onAuthorizationUrl: async () => {
      asked = true;
      return undefined;
    },
  });
  const error = await authError(client.connect());
  assert.equal(error.step, 'registration');
  assert.equal(error.error, 'invalid_redirect_uri');
  assert.ok(error.message.startsWith('remote: '), error.message);
  assert.ok(
    error.message.includes(
      `the server refused the redirect URI ${redirectUrl}: set auth.redirectUrl to one it accepts, or register a client yourself and set auth.clientId`,
    ),
    error.message,
  );
  assert.match(error.message, /must not be using 127\.0\.0\.1/, 'the server’s own reason is kept');
  assert.equal(asked, false, 'nobody was sent to authorize');
  assert.deepEqual(as.registeredClients(), []);
});
