// A 401 from a server on loopback: with no credential configured it fails at once, typed, not
// retried by the reconnect policy, and says how to give one; with a credential configured the
// reconnect rule is today's. The command, against a server with no OAuth metadata at all (an API
// key server), says to pass --header 'Authorization: Bearer ...', never an OAuth library's words.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, HttpError, Secret } from '../../../src/index.js';
import { buildOnce, run } from '../../helpers/cli.js';
import { temporaryDirectory } from '../../helpers/fixtures.js';
import { type Handler, json, plainServer } from '../../helpers/http.js';

async function serve(handler: Handler) {
  const server = await plainServer(handler);
  after(() => server.close());
  return server;
}

const posts = (server: Awaited<ReturnType<typeof serve>>) => server.seen.filter((s) => s.method === 'POST');

/** An API-key server: 401 to every POST without its key, nothing at any well-known URL. */
const apiKeyServer: Handler = (request, res) => {
  if (request.method !== 'POST') return void res.writeHead(404).end('not found');
  res.writeHead(401, { 'content-type': 'text/plain' });
  res.end('missing API key');
};

describe('a 401 with no authorization configured', () => {
  test('fails at once with HttpError 401 saying how to authorize; no reconnect, one POST', async () => {
    const server = await serve(apiKeyServer);
    const c = new Client({
      name: 'keyed',
      transport: { type: 'http', url: server.url },
      reconnect: { maxReconnects: 5, initialDelay: 10, maxDelay: 20 },
    });
    const reconnects: unknown[] = [];
    c.on('reconnecting', (event) => reconnects.push(event));
    await assert.rejects(c.connect(), (error: unknown) => {
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.status, 401);
      assert.match(error.message, /needs authorization, and none is configured/);
      assert.match(error.message, /transport\.auth/);
      assert.match(error.message, /static Authorization header in transport\.headers/);
      assert.match(error.message, /missing API key/, 'the server’s own words are quoted');
      assert.equal(error.message.split('keyed:').length - 1, 1, 'the server is named once');
      return true;
    });
    assert.deepEqual(reconnects, [], 'not retried');
    assert.equal(posts(server).length, 1, 'one server/discover, no initialize, no retry');
    assert.equal(c.state, 'closed');
  });

  test('a 401 whose body is a JSON-RPC error is still the 401, not a legacy era signal', async () => {
    const server = await serve((_request, res) =>
      json(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } }),
    );
    const c = new Client({ name: 'keyed', transport: { type: 'http', url: server.url } });
    await assert.rejects(
      c.connect(),
      (error: unknown) =>
        error instanceof HttpError && error.status === 401 && /none is configured/.test(error.message),
    );
    assert.deepEqual(
      posts(server).map((s) => s.message?.method),
      ['server/discover'],
    );
  });

  for (const [what, extra] of [
    ['a Secret header', { headers: { 'X-Api-Key': new Secret('wrong-key-1234') } }],
    ['a plain header', { headers: { 'X-Api-Key': 'wrong-key-1234' } }],
    ['a key in the URL query', { query: '?key=wrong-key-1234' }],
  ] as const) {
    test(`with a credential configured (${what}), a refused one keeps the reconnect rule`, async () => {
      const server = await serve(apiKeyServer);
      const { query = '', ...options } = extra as { query?: string; headers?: Record<string, unknown> };
      const c = new Client({
        name: 'keyed',
        transport: { type: 'http', url: `${server.url}${query}`, ...options } as never,
        reconnect: { maxReconnects: 1, initialDelay: 10, maxDelay: 20 },
      });
      const reconnects: unknown[] = [];
      c.on('reconnecting', (event) => reconnects.push(event));
      await assert.rejects(c.connect(), (error: unknown) => {
        assert.ok(error instanceof HttpError && error.status === 401, String(error));
        assert.doesNotMatch(error.message, /none is configured/);
        return true;
      });
      assert.equal(reconnects.length, 1);
      assert.equal(posts(server).length, 2);
    });
  }
});

describe('the command against a server with no OAuth metadata', () => {
  buildOnce();

  test("says to pass --header 'Authorization: Bearer ...', in the command's words", async () => {
    const server = await serve(apiKeyServer);
    const finished = await run(['tools', server.url], {
      timeoutMs: 30_000,
      env: { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() },
    });
    assert.equal(finished.code, 1, finished.stderr);
    assert.match(finished.stderr, /answered 401, but the server publishes no OAuth metadata/);
    assert.match(finished.stderr, /--header 'Authorization: Bearer \.\.\.'/);
    assert.doesNotMatch(finished.stderr, /"response"|content-type must be|transport\.|auth:/);
  });

  test('also when its authorization server metadata URL answers 401 too', async () => {
    const server = await serve((_request, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('missing API key');
    });
    const finished = await run(['tools', server.url], {
      timeoutMs: 30_000,
      env: { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() },
    });
    assert.equal(finished.code, 1, finished.stderr);
    assert.match(finished.stderr, /publishes no OAuth metadata/);
    assert.match(finished.stderr, /--header 'Authorization: Bearer \.\.\.'/);
  });
});
