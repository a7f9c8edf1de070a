// OAuth steps of a connection attempt are events of its span, and no credential is recorded.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { headlessConsent } from '../helpers/auth.js';
import { closeLater } from '../helpers/auth-setup.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';
import { exporter, provider, spanNamed } from './otel.js';

after(() => provider.shutdown());

test('the connect span of a server behind OAuth has its discovery, registration and authorization as events', async () => {
  const auth = await startAuthServer({ scopesSupported: ['mcp'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2', {});
  await using client = new Client({
    name: 'remote',
    transport: {
      type: 'http',
      url: mcp.server.url,
      auth: { allowPrivateNetwork: true, onAuthorizationUrl: (url) => headlessConsent(url) },
    },
    reconnect: { maxReconnects: 0 },
    telemetry: { tracerProvider: provider },
  });
  exporter.reset();
  await client.connect();
  const connect = spanNamed('conduit-mcp connect');
  const events = connect.events.map((event) => event.name);
  for (const step of ['oauth discovered', 'oauth registered', 'oauth authorized'])
    assert.ok(events.includes(step), `${step} in ${events.join(', ')}`);
  const authorized = connect.events.find((event) => event.name === 'oauth authorized')!;
  assert.equal(authorized.attributes?.['conduit_mcp.oauth.issuer'], auth.issuer);
  const recorded = JSON.stringify(exporter.getFinishedSpans().map((span) => [span.attributes, span.events]));
  for (const token of auth.accessTokens.keys())
    assert.ok(!recorded.includes(token), 'no access token recorded');
  assert.doesNotMatch(recorded, /code_verifier|client_secret|Bearer /i);
});
