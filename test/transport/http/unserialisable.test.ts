// A request whose params cannot be JSON (a BigInt) fails at once with the TypeError that says why,
// in both eras: HttpTransport.send() serialises before it returns, so nothing is POSTed, no
// promise is left to reject unhandled, and the request does not wait for its timeout.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../../src/index.js';
import { json, modern, plainServer, result } from '../../helpers/http.js';

const legacyServer = await plainServer((request, res) => {
  const method = request.message?.method;
  if (request.method === 'GET') return void res.writeHead(405).end();
  if (request.method === 'DELETE') return void res.writeHead(204).end();
  if (method === 'initialize') {
    return result(
      res,
      request,
      { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'l', version: '1' } },
      { 'mcp-session-id': 'session-1' },
    );
  }
  if (request.message?.id === undefined) return void res.writeHead(202).end();
  return result(res, request, { content: [{ type: 'text', text: 'ok' }] });
});
const modernServer = await plainServer(
  modern((request, res) => {
    if (request.message?.id === undefined) return void res.writeHead(202).end();
    return json(res, 200, {
      jsonrpc: '2.0',
      id: request.message.id,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] },
    });
  }),
);
after(() => Promise.all([legacyServer.close(), modernServer.close()]));

for (const [era, server, protocol] of [
  ['legacy', legacyServer, 'legacy'],
  ['modern', modernServer, 'auto'],
] as const) {
  test(`${era}: a tools/call with a BigInt argument rejects at once with a TypeError; nothing is sent`, async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const client = new Client({ name: era, protocol, transport: { type: 'http', url: server.url } });
    try {
      await client.connect();
      const posted = server.seen.filter((seen) => seen.method === 'POST').length;
      const started = Date.now();
      await assert.rejects(
        client.callTool({ name: 'echo', arguments: { n: 1n } }, { timeout: 60_000 }),
        (error: Error) =>
          error instanceof TypeError && /cannot be serialised as JSON.*BigInt/.test(error.message),
      );
      assert.ok(Date.now() - started < 30_000, 'the call did not wait for its timeout');
      const text = await client.callTool({ name: 'echo', arguments: { n: 1 } });
      assert.deepEqual(text.content, [{ type: 'text', text: 'ok' }]);
      const calls = server.seen.slice(posted).filter((seen) => seen.message?.method === 'tools/call');
      assert.equal(calls.length, 1, 'only the serialisable call reached the server');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await client.close();
    }
  });
}
