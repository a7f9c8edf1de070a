// The origin pool (the Requester's dispatcher without a proxy), against real servers on loopback:
// one connection per request running at once, an idle one reused, a failed one dropped, nothing
// sent after destroy().
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { originPool } from '../../../src/transport/http/origin-pool.js';
import { loadHttpDeps } from '../../../src/transport/http/requester.js';

async function server(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const closed: Socket[] = [];
  const http = createServer(handle);
  http.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => closed.push(socket));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  after(() => {
    http.closeAllConnections();
    http.close();
  });
  const port = (http.address() as AddressInfo).port;
  return { origin: new URL(`http://127.0.0.1:${port}`), port, sockets, closed, http };
}

const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

async function pool(origin: URL) {
  const { undici } = await loadHttpDeps();
  return originPool(undici, origin, undici.buildConnector({}));
}

async function get(dispatcher: Awaited<ReturnType<typeof pool>>, path = '/'): Promise<string> {
  const response = await dispatcher.request({
    origin: 'http://unused.invalid',
    path,
    method: 'GET',
    headersTimeout: 10_000,
  });
  return response.body.text();
}

describe('origin pool', () => {
  test('sequential requests share keep-alive connections', async () => {
    const target = await server((_req, res) => answer(res));
    const dispatcher = await pool(target.origin);
    try {
      for (let i = 0; i < 20; i++) assert.equal(await get(dispatcher), 'ok');
      // As with undici's Pool: the next request can come before the last connection's 'drain'.
      assert.ok(target.sockets.size <= 2, `${target.sockets.size} connections`);
    } finally {
      await dispatcher.destroy();
    }
  });

  test('requests at once each get a connection; an idle one is reused afterwards', async () => {
    const held: ServerResponse[] = [];
    let hold = true;
    const target = await server((_req, res) => {
      if (!hold) return answer(res);
      // Nothing is answered until all eight arrived: one connection could not carry them.
      held.push(res);
      if (held.length === 8) for (const res of held) answer(res);
    });
    const dispatcher = await pool(target.origin);
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => get(dispatcher)));
      assert.deepEqual(answers, Array(8).fill('ok'));
      assert.equal(target.sockets.size, 8);
      hold = false;
      for (let i = 0; i < 10; i++) assert.equal(await get(dispatcher), 'ok');
      assert.ok(target.sockets.size <= 9, `${target.sockets.size} connections`);
    } finally {
      await dispatcher.destroy();
    }
  });

  test('a connection that failed to connect is dropped; the next request connects afresh', async () => {
    const target = await server((_req, res) => answer(res));
    const { port } = target;
    target.http.close();
    await once(target.http, 'close');
    const dispatcher = await pool(new URL(`http://127.0.0.1:${port}`));
    try {
      await assert.rejects(get(dispatcher), (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED');
      assert.equal(dispatcher.connections, 0);
      target.http.listen(port, '127.0.0.1');
      await once(target.http, 'listening');
      assert.equal(await get(dispatcher), 'ok');
      assert.equal(dispatcher.connections, 1);
    } finally {
      await dispatcher.destroy();
    }
  });

  test('destroy() closes the idle connections, and nothing is sent after it', async () => {
    let requests = 0;
    const target = await server((_req, res) => {
      requests++;
      answer(res);
    });
    const dispatcher = await pool(target.origin);
    assert.equal(await get(dispatcher), 'ok');
    await dispatcher.destroy();
    const [socket] = target.sockets;
    if (!target.closed.includes(socket!)) await once(socket!, 'close');
    await assert.rejects(get(dispatcher), (error: Error) => error.name === 'ClientDestroyedError');
    assert.equal(requests, 1);
    assert.equal(target.sockets.size, 1);
  });
});
