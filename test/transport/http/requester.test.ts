// The Requester's pool serves its endpoint's origin only: a URL of another origin is refused before
// anything is sent (a Pool would otherwise send it to the endpoint's host).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { HttpError } from '../../../src/index.js';
import { loadHttpDeps, Requester } from '../../../src/transport/http/requester.js';

async function countingServer() {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    count: () => requests,
  };
}

describe('Requester', () => {
  test('a URL of another origin is refused with HttpError redirect, and reaches neither server', async () => {
    const endpoint = await countingServer();
    const other = await countingServer();
    const requester = new Requester(await loadHttpDeps(), {
      endpoint: endpoint.url,
      baseHeaders: {},
      secrets: [],
      headersTimeout: 10_000,
      env: {},
    });
    try {
      const init = { method: 'POST' as const, headers: {}, body: '{}', signal: new AbortController().signal };
      await assert.rejects(requester.send(other.url, init), (error: unknown) => {
        assert.ok(error instanceof HttpError, String(error));
        assert.equal(error.kind, 'redirect');
        assert.match(error.message, /not the endpoint's origin/);
        return true;
      });
      assert.equal(other.count(), 0);
      assert.equal(endpoint.count(), 0);
      // The endpoint itself is still served.
      const response = await requester.send(endpoint.url, init);
      assert.equal(response.status, 200);
      response.body.resume();
      assert.equal(endpoint.count(), 1);
    } finally {
      await requester.close();
    }
  });
});
