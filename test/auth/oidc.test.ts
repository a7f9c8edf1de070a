// OAuth against a certified authorization server (oidc-provider) in front of an MCP server that
// accepts only audience-bound JWTs; the user signs in and consents on the server's own forms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryTokenStore } from '../../src/index.js';
import { type BrowserVisit, browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, textOf } from '../helpers/auth-oidc.js';

test('a Client authorizes at oidc-provider: login and consent forms, a JWT for the MCP resource, then calls', async () => {
  const { as, mcp, refusals } = await oidcScene();
  const visit: BrowserVisit = { submitted: [], landed: undefined };
  const client = oidcClient(mcp.url, { onAuthorizationUrl: browser(visit), store: new MemoryTokenStore() });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
  assert.deepEqual(visit.submitted, ['login', 'consent']);
  assert.equal(new URL(visit.landed!).searchParams.get('iss'), as.issuer);
  assert.deepEqual(refusals, ['no token']);
  assert.equal(as.issued('authorization_code'), 1);
});
