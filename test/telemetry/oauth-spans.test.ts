// Each OAuth HTTP exchange is a CLIENT span with its own start and end: under the connect span
// during a connection attempt, under the request that caused it afterwards, a root linked to the
// connect span outside both. Against oidc-provider
// (and the test authorization server for a 401 in mid-session); no credential is ever recorded.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client, MemoryTokenStore } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { headlessConsent } from '../helpers/auth.js';
import { type BrowserVisit, browser } from '../helpers/auth-browser.js';
import { oidcScene } from '../helpers/auth-oidc.js';
import { closeLater } from '../helpers/auth-setup.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';
import { exporter, provider, spanNamed, spansNamed } from './otel.js';

after(() => provider.shutdown());

const { SpanKind } = await import('@opentelemetry/api');

function client(url: string, auth: Record<string, unknown>, more: Record<string, unknown> = {}): Client {
  const made = new Client({
    ...more,
    name: 'remote',
    transport: { type: 'http', url, auth: { allowPrivateNetwork: true, ...auth } },
    reconnect: { maxReconnects: 0 },
    telemetry: { tracerProvider: provider },
  });
  closeLater(() => made.close());
  return made;
}

const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The finished spans as an indented tree, each with its step, status and duration. */
function tree(spans: ReadableSpan[]): string {
  const lines: string[] = [];
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const walk = (parent: string | undefined, depth: number) => {
    const children = spans.filter((span) =>
      parent === undefined ? !ids.has(parentOf(span) ?? '') : parentOf(span) === parent,
    );
    for (const span of children.sort((a, b) => ms(a.startTime) - ms(b.startTime))) {
      const a = span.attributes;
      const what = a['url.full']
        ? ` ${a['http.request.method']} ${a['url.full']} ${a['http.response.status_code']}`
        : '';
      const grant = a['conduit_mcp.oauth.grant_type'] ? ` ${a['conduit_mcp.oauth.grant_type']}` : '';
      lines.push(`${'  '.repeat(depth)}${span.name}${what}${grant} ${ms(span.duration).toFixed(1)} ms`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

/** Every credential the store holds now: tokens and client secret. */
async function credentials(store: MemoryTokenStore, keys: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const key of keys) {
    const entry = (await store.get(key)) as Record<string, unknown> | undefined;
    for (const field of ['accessToken', 'refreshToken', 'clientSecret'])
      if (typeof entry?.[field] === 'string') found.push(entry[field] as string);
  }
  return found;
}

function assertNothingSecret(secrets: string[]): void {
  const recorded = JSON.stringify(
    exporter.getFinishedSpans().map((span) => [span.name, span.attributes, span.events, span.links]),
  );
  assert.ok(secrets.length > 0);
  for (const secret of secrets) assert.ok(!recorded.includes(secret), 'no credential in a span');
  assert.doesNotMatch(recorded, /code_verifier|client_secret|Bearer |[?&]code=/i);
}

function assertWithin(child: ReadableSpan, parent: ReadableSpan): void {
  assert.equal(parentOf(child), parent.spanContext().spanId, `${child.name} is a child of ${parent.name}`);
  assert.equal(child.spanContext().traceId, parent.spanContext().traceId);
  assert.equal(child.kind, SpanKind.CLIENT);
  assert.ok(ms(child.duration) > 0, `${child.name} took some time`);
  assert.ok(ms(child.startTime) >= ms(parent.startTime), `${child.name} starts within ${parent.name}`);
  assert.ok(ms(child.endTime) <= ms(parent.endTime), `${child.name} ends within ${parent.name}`);
}

test('a first connect: discovery, registration and the token request are spans under the connect span, in order', async () => {
  const { as, mcp } = await oidcScene({ tokenDelay: 200 });
  const store = new MemoryTokenStore();
  const visit: BrowserVisit = { submitted: [], landed: undefined };
  const remote = client(mcp.url, { store, onAuthorizationUrl: browser(visit) });
  exporter.reset();
  await remote.connect();
  const spans = exporter.getFinishedSpans();
  const connect = spanNamed('conduit-mcp connect');
  const exchanges = spans.filter((span) => span.name.startsWith('oauth '));
  const steps = exchanges.map((span) => span.attributes['conduit_mcp.oauth.step']);
  assert.deepEqual(
    [...new Set(steps)],
    ['resource_metadata', 'server_metadata', 'registration', 'token'],
    `the exchanges, in the order they started:\n${tree(spans)}`,
  );
  for (const span of exchanges) {
    assertWithin(span, connect);
    const url = String(span.attributes['url.full']);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[^?]*$/, 'origin and path, no query');
    assert.equal(typeof span.attributes['http.response.status_code'], 'number');
    assert.equal(span.attributes['conduit_mcp.server.name'], 'remote');
  }
  for (let i = 1; i < exchanges.length; i++)
    assert.ok(ms(exchanges[i]!.startTime) >= ms(exchanges[i - 1]!.endTime), 'one after the other');
  const token = spanNamed('oauth token');
  assert.equal(token.attributes['http.request.method'], 'POST');
  assert.equal(token.attributes['url.full'], `${as.issuer}/token`);
  assert.equal(token.attributes['http.response.status_code'], 200);
  assert.equal(token.attributes['conduit_mcp.oauth.grant_type'], 'authorization_code');
  assert.equal(token.attributes['error.type'], undefined);
  // The server holds the token request 200 ms: the span covers the wait, from the request sent to its answer.
  assert.ok(ms(token.duration) >= 199, `the token request took ${ms(token.duration)} ms`);
  assert.equal(spanNamed('oauth registration').attributes['http.response.status_code'], 201);
  const events = connect.events.map((event) => event.name);
  assert.deepEqual(
    events.filter((name) => name.startsWith('oauth ')),
    ['oauth discovered', 'oauth registered', 'oauth authorized'],
  );
  const code = new URL(visit.landed!).searchParams.get('code');
  assert.ok(code);
  const keys = [`tokens ${as.issuer} ${mcp.url}`, `client ${as.issuer}`];
  assertNothingSecret([code, ...(await credentials(store, keys))]);
});

test('a token refreshed before a request (it expired) is a span under that request', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: 2 });
  const store = new MemoryTokenStore();
  const remote = client(mcp.url, { store, onAuthorizationUrl: browser() });
  await remote.connect();
  const keys = [`tokens ${as.issuer} ${mcp.url}`, `client ${as.issuer}`];
  const before = await credentials(store, keys);
  await sleep(2100); // the 2 s access token is due
  exporter.reset();
  await remote.callTool({ name: 'echo', arguments: { text: 'later' } });
  const call = spanNamed('tools/call echo');
  const refresh = spanNamed('oauth token');
  assertWithin(refresh, call);
  assert.equal(refresh.attributes['conduit_mcp.oauth.grant_type'], 'refresh_token');
  assert.equal(refresh.attributes['http.response.status_code'], 200);
  assert.deepEqual(
    call.events.map((event) => event.name),
    ['oauth refreshed'],
  );
  assertNothingSecret([...before, ...(await credentials(store, keys))]);
});

test('a 401 in mid-session: the refresh it leads to is a span under the request that met it', async () => {
  const auth = await startAuthServer({ scopesSupported: ['mcp'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2', {});
  const remote = client(mcp.server.url, { onAuthorizationUrl: (url: URL) => headlessConsent(url) });
  await remote.connect();
  assert.equal(auth.refreshTokens.size, 1, 'a refresh token was issued');
  auth.accessTokens.clear(); // the resource server no longer takes the token: 401
  exporter.reset();
  await remote.listTools();
  const list = spanNamed('tools/list');
  const exchanges = exporter.getFinishedSpans().filter((span) => span.name.startsWith('oauth '));
  assert.ok(
    exchanges.some((span) => span.attributes['conduit_mcp.oauth.grant_type'] === 'refresh_token'),
    `a refresh:\n${tree(exporter.getFinishedSpans())}`,
  );
  for (const span of exchanges) assertWithin(span, list);
  assert.equal(spansNamed('conduit-mcp connect').length, 0);
  assertNothingSecret(auth.issued);
});

test('a refused token request is a failed span (error.type, the status) under the failed connect span', async () => {
  const auth = await startAuthServer({ tokenError: { error: 'invalid_grant' } });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2', {});
  const remote = client(mcp.server.url, { onAuthorizationUrl: (url: URL) => headlessConsent(url) });
  exporter.reset();
  await assert.rejects(remote.connect(), /invalid_grant/);
  const connect = spanNamed('conduit-mcp connect');
  const token = spanNamed('oauth token');
  assertWithin(token, connect);
  assert.equal(token.attributes['http.response.status_code'], 400);
  assert.equal(token.attributes['error.type'], '400');
  assert.equal(token.status.code, (await import('@opentelemetry/api')).SpanStatusCode.ERROR);
  assert.equal(spanNamed('oauth registration').attributes['error.type'], undefined);
  assert.ok(connect.events.some((event) => event.name === 'oauth failed'));
  assertNothingSecret(auth.issued);
});

test('a refresh outside any request (a legacy keepalive ping found the token due) is a root span linked to the connect span', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: 2 });
  const store = new MemoryTokenStore();
  exporter.reset();
  const remote = client(
    mcp.url,
    { store, onAuthorizationUrl: browser() },
    { protocol: 'legacy', pingInterval: 2500 },
  );
  await remote.connect();
  const connect = spanNamed('conduit-mcp connect');
  const refreshSpan = () =>
    spansNamed('oauth token').find(
      (span) => span.attributes['conduit_mcp.oauth.grant_type'] === 'refresh_token',
    );
  // The span ends after the client has read the answer, later than the server counts the grant:
  // wait for the span itself.
  const deadline = Date.now() + 20_000;
  while (refreshSpan() === undefined && Date.now() < deadline) await sleep(100);
  const refresh = refreshSpan();
  assert.ok(refresh, `no refresh span:\n${tree(exporter.getFinishedSpans())}`);
  assert.equal(as.issued('refresh_token'), 1, 'the ping refreshed the token, once');
  assert.equal(parentOf(refresh), undefined, 'a root span');
  assert.deepEqual(
    refresh.links.map((link) => link.context.spanId),
    [connect.spanContext().spanId],
  );
  assert.equal(refresh.attributes['http.response.status_code'], 200);
  assert.ok(ms(refresh.duration) > 0);
});
