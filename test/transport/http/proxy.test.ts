// HTTP_PROXY / NO_PROXY through a real forward proxy on loopback (CONNECT tunnels and
// absolute-form requests both recorded), and the HttpTransport on its own.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, describe, test } from 'node:test';
import { HttpTransport, type JsonRpcMessage } from '../../../src/index.js';
import { modern, plainServer, result } from '../../helpers/http.js';

async function forwardProxy() {
  const targets: string[] = [];
  const proxy = createServer((req, res) => {
    targets.push(`GET-style ${req.url}`);
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on('connect', (req, socket, head) => {
    targets.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  after(() => {
    proxy.closeAllConnections();
    proxy.close();
  });
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, targets };
}

async function discover(transport: HttpTransport): Promise<JsonRpcMessage> {
  await transport.start();
  const answer = once(transport, 'message');
  transport.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  });
  const [message] = (await answer) as [JsonRpcMessage];
  await transport.close();
  return message;
}

describe('proxies', () => {
  test('HTTP_PROXY carries the requests', async () => {
    const server = await plainServer(modern((request, res) => result(res, request, {})));
    after(() => server.close());
    const proxy = await forwardProxy();
    const transport = new HttpTransport({ url: server.url }, { env: { HTTP_PROXY: proxy.url } });
    const message = await discover(transport);
    assert.deepEqual((message as { result: { supportedVersions: string[] } }).result.supportedVersions, [
      '2026-07-28',
    ]);
    const port = new URL(server.origin).port;
    assert.ok(
      proxy.targets.length > 0 && proxy.targets.every((t) => t.includes(`127.0.0.1:${port}`)),
      proxy.targets.join(),
    );
  });

  test('NO_PROXY names hosts that are reached directly', async () => {
    const server = await plainServer(modern((request, res) => result(res, request, {})));
    after(() => server.close());
    const proxy = await forwardProxy();
    const transport = new HttpTransport(
      { url: server.url },
      { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } },
    );
    await discover(transport);
    assert.deepEqual(proxy.targets, []);
    assert.equal(server.seen.length, 1);
  });

  test('HTTPS_PROXY alone leaves an http: endpoint reached directly (it names the proxy of https: only)', async () => {
    const server = await plainServer(modern((request, res) => result(res, request, {})));
    after(() => server.close());
    const proxy = await forwardProxy();
    const transport = new HttpTransport({ url: server.url }, { env: { HTTPS_PROXY: proxy.url } });
    await discover(transport);
    assert.deepEqual(proxy.targets, []);
    assert.equal(server.seen.length, 1);
  });
});

describe('HttpTransport', () => {
  test('close() is idempotent, emits close once, and send() afterwards throws ConnectionClosedError', async () => {
    const server = await plainServer(modern((request, res) => result(res, request, {})));
    after(() => server.close());
    const transport = new HttpTransport({ url: server.url });
    const reasons: string[] = [];
    transport.on('close', (reason) => reasons.push(reason.type));
    await transport.start();
    await Promise.all([transport.close(), transport.close()]);
    assert.deepEqual(reasons, ['closed']);
    assert.throws(() => transport.send({ jsonrpc: '2.0', method: 'x' }), { name: 'ConnectionClosedError' });
    assert.equal(transport.kind, 'http');
  });

  test('a function Secret is resolved on every start', async () => {
    const server = await plainServer(modern((request, res) => result(res, request, {})));
    after(() => server.close());
    let calls = 0;
    const { Secret } = await import('../../../src/index.js');
    const key = new Secret(() => `key-${++calls}`);
    for (let i = 0; i < 2; i++)
      await discover(new HttpTransport({ url: server.url, headers: { 'X-Key': key } }));
    assert.deepEqual(
      server.seen.map((s) => s.headers['x-key']),
      ['key-1', 'key-2'],
    );
  });
});
