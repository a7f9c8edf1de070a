// What the body of an HTTP answer holds, on real servers on loopback: a JSON answer to an id
// never requested settles the request it answered at once; a body that is no JSON-RPC message is
// an invalid_body error that names the server once; a 2025-03-26 batch answer is understood.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, HttpError } from '../../../src/index.js';
import { type Handler, json, legacy, modern, plainServer, result } from '../../helpers/http.js';

const NAME = 'answers-srv';

async function serve(handler: Handler) {
  const server = await plainServer(handler);
  after(() => server.close());
  return server;
}

function client(url: string) {
  const c = new Client({
    name: NAME,
    transport: { type: 'http', url },
    // Far beyond the test's own bounds: a request left pending would show as a timeout here.
    requestTimeout: 60_000,
    reconnect: { maxReconnects: 0 },
  });
  after(() => c.close());
  return c;
}

/** The call's error, 'resolved', or 'still pending' after `ms` (far below its requestTimeout). */
async function settledWithin(call: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, 'still pending');
  });
  try {
    return await Promise.race([
      call.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many times the server's name appears in a message. */
const mentions = (message: string) => message.split(NAME).length - 1;

describe('a JSON answer that answers no request of ours', () => {
  test('a 200 whose only response is to an id never requested settles the call at once', async () => {
    const server = await serve(
      modern((request, res) => {
        if (request.message?.method === 'tools/call')
          return json(res, 200, { jsonrpc: '2.0', id: 'never-requested-99', result: { content: [] } });
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    const outcome = await settledWithin(c.callTool({ name: 'echo', arguments: {} }), 10_000);
    assert.ok(outcome instanceof HttpError, `the call settled with an HttpError, got ${String(outcome)}`);
    assert.equal(outcome.kind, 'invalid_body');
    assert.equal(outcome.status, 200);
    assert.match(outcome.message, /no response to this request/);
    assert.equal(mentions(outcome.message), 1, outcome.message);
    // The client goes on: the next call is answered.
    assert.deepEqual((await c.listTools()).tools, []);
  });

  test('an error status whose JSON-RPC error is for another id fails the call with the status', async () => {
    const server = await serve(
      modern((request, res) => {
        if (request.message?.method === 'tools/call')
          return json(res, 500, {
            jsonrpc: '2.0',
            id: 'someone-else',
            error: { code: -32603, message: 'x' },
          });
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    const outcome = await settledWithin(c.callTool({ name: 'echo', arguments: {} }), 10_000);
    assert.ok(outcome instanceof HttpError, `the call settled with an HttpError, got ${String(outcome)}`);
    assert.equal(outcome.status, 500);
  });
});

describe('invalid_body', () => {
  test('a 200 JSON body that is no JSON-RPC message names the server once', async () => {
    const server = await serve(
      modern((request, res) => {
        if (request.message?.method === 'tools/call') return json(res, 200, { hello: 'world' });
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'echo', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.kind, 'invalid_body');
      assert.equal(mentions(error.message), 1, error.message);
      assert.match(
        error.message,
        /^answers-srv: POST http:\/\/127\.0\.0\.1:\d+\/mcp \(tools\/call\) answered HTTP 200/,
      );
      assert.match(error.message, /not a JSON-RPC message: \{"hello":"world"\}/);
      return true;
    });
  });
});

describe('2025-03-26 batches', () => {
  test('a JSON array answering one request is read message by message', async () => {
    const server = await serve(
      legacy(
        (request, res) => {
          if (request.message?.method !== 'tools/call') return result(res, request, { tools: [] });
          json(res, 200, [
            {
              jsonrpc: '2.0',
              method: 'notifications/message',
              params: { level: 'info', data: 'from the batch' },
            },
            {
              jsonrpc: '2.0',
              id: request.message.id,
              result: { content: [{ type: 'text', text: 'batched' }] },
            },
          ]);
        },
        { version: '2025-03-26' },
      ),
    );
    const c = client(server.url);
    const logs: unknown[] = [];
    c.on('log', (message) => logs.push(message.data));
    await c.connect();
    assert.equal(c.protocolVersion, '2025-03-26');
    const answer = (await c.callTool({ name: 'echo', arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    assert.equal(answer.content[0]!.text, 'batched');
    assert.deepEqual(logs, ['from the batch']);
  });
});
