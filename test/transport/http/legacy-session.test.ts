// Legacy (2025-11-25) Streamable HTTP sessions on real servers on loopback: a request the server
// refused with 404 for an expired session never ran, so it goes once more on the next session;
// everything else keeps its failure. Cancelling a legacy request POSTs notifications/cancelled.
// A stream cut before its response is resumed after the server's `retry:` delay, not the default.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, describe, test } from 'node:test';
import { AbortError, Client, ConnectionClosedError, HttpError } from '../../../src/index.js';
import { type Handler, json, legacy, plainServer, result, type Seen } from '../../helpers/http.js';
import { textOf, waitFor } from '../../helpers/wait.js';

async function serve(handler: Handler) {
  const server = await plainServer(handler);
  after(() => server.close());
  return server;
}

function client(url: string, maxReconnects = 3) {
  const c = new Client({
    name: 'legacy-srv',
    transport: { type: 'http', url },
    reconnect: { maxReconnects, initialDelay: 10, maxDelay: 20, jitter: 0 },
  });
  after(() => c.close());
  return c;
}

const expiredAnswer = (res: ServerResponse) =>
  json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });

const calls = (seen: Seen[], tool?: string) =>
  seen.filter(
    (s) => s.message?.method === 'tools/call' && (tool === undefined || s.message.params?.name === tool),
  );

const text = (value: unknown) => textOf(value as Parameters<typeof textOf>[0]);

describe('a request refused for an expired session', () => {
  test('is sent once more on the new session and answered there', async () => {
    const expired = new Set<string>();
    const server = await serve(
      legacy((request, res, session) => {
        if (session && expired.has(session)) return expiredAnswer(res);
        if (request.message?.method === 'tools/call')
          return result(res, request, { content: [{ type: 'text', text: `served by ${session}` }] });
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    assert.equal(text(await c.callTool({ name: 'echo', arguments: {} })), 'served by s1');
    expired.add('s1');
    assert.equal(text(await c.callTool({ name: 'echo', arguments: {} })), 'served by s2');
    assert.deepEqual(
      calls(server.seen).map((s) => s.headers['mcp-session-id']),
      ['s1', 's1', 's2'],
      'the refused call went once to s1, then once to s2',
    );
  });

  test('refused again on the new session: not sent a third time, the failure is the expiry', async () => {
    const server = await serve(
      // Every session ends before its first call.
      legacy((request, res) => {
        if (request.message?.method === 'tools/call') return expiredAnswer(res);
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(
      c.callTool({ name: 'echo', arguments: {} }),
      (error: unknown) => error instanceof ConnectionClosedError && error.reason.type === 'session_expired',
    );
    assert.equal(calls(server.seen).length, 2, 'the first POST and one more, no third');
  });

  test('a request in flight when the session expired may have run: it fails, it is not sent again', async () => {
    let expired = false;
    const server = await serve(
      legacy((request, res, session) => {
        if (expired && session === 's1') return expiredAnswer(res);
        if (request.message?.params?.name === 'hang') return; // left open until the session ends
        return result(res, request, { content: [{ type: 'text', text: `served by ${session}` }] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    const hanging = c.callTool({ name: 'hang', arguments: {} }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    await waitFor(() => calls(server.seen, 'hang').length === 1, 'the hanging call to reach the server');
    expired = true;
    assert.equal(text(await c.callTool({ name: 'echo', arguments: {} })), 'served by s2');
    const failure = await hanging;
    assert.ok(
      failure instanceof ConnectionClosedError && failure.reason.type === 'session_expired',
      String(failure),
    );
    assert.equal(calls(server.seen, 'hang').length, 1, 'the call that may have run went once');
  });

  test('any other failure keeps its rule: a 500 fails the call, which is not sent again', async () => {
    const server = await serve(
      legacy((request, res) => {
        if (request.message?.method === 'tools/call') return void res.writeHead(500).end('boom');
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(
      c.callTool({ name: 'echo', arguments: {} }),
      (error: unknown) => error instanceof HttpError && error.status === 500,
    );
    assert.equal(calls(server.seen).length, 1);
  });
});

describe('cancelling a legacy request', () => {
  test('POSTs notifications/cancelled naming the request, on its session', async () => {
    const server = await serve(
      legacy((request, res) => {
        if (request.message?.method === 'tools/call') return; // never answered: the client cancels
        return result(res, request, { tools: [] });
      }),
    );
    const c = client(server.url);
    await c.connect();
    const controller = new AbortController();
    const call = c.callTool({ name: 'slow', arguments: {} }, { signal: controller.signal });
    await waitFor(() => calls(server.seen).length === 1, 'the call to reach the server');
    controller.abort(new Error('the user gave up'));
    await assert.rejects(call, AbortError);
    const id = calls(server.seen)[0]!.message!.id;
    await waitFor(
      () => server.seen.some((s) => s.message?.method === 'notifications/cancelled'),
      'the cancellation POST',
      5000,
    );
    const cancel = server.seen.find((s) => s.message?.method === 'notifications/cancelled')!;
    assert.equal(cancel.method, 'POST');
    assert.equal(cancel.message!.params?.requestId, id);
    assert.equal(cancel.headers['mcp-session-id'], 's1');
  });
});

describe('resuming a stream cut before its response', () => {
  test("each stream waits its own server's retry: (large, default, small) before resuming", async () => {
    // Three calls whose streams the server cuts in this order: `large` (retry: 2500 ms), then
    // `plain` (no retry: the default, 1000 ms), then `small` (retry: 50 ms), 100 ms apart. Honoured,
    // the resumptions come small, plain, large; one delay for all would bring them in cut order.
    const streams = new Map<string, { id: unknown; res: ServerResponse }>();
    const retries: Record<string, string> = { large: 'retry: 2500\n', plain: '', small: 'retry: 50\n' };
    const resumed: string[] = [];
    const server = await serve(
      legacy(
        (request, res) => {
          if (request.message?.method !== 'tools/call') return result(res, request, { tools: [] });
          const name = String(request.message.params?.name);
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`id: ${name}-1\n${retries[name]}data:\n\n`);
          streams.set(name, { id: request.message.id, res });
          if (streams.size < 3) return;
          ['large', 'plain', 'small'].forEach((cut, i) => {
            setTimeout(() => streams.get(cut)!.res.end(), 100 * i);
          });
        },
        {
          onGet: (request, res) => {
            const lastEventId = String(request.headers['last-event-id'] ?? '');
            const name = lastEventId.replace(/-1$/, '');
            const stream = streams.get(name);
            if (!stream) return void res.writeHead(405).end();
            resumed.push(name);
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            const answer = {
              jsonrpc: '2.0',
              id: stream.id,
              result: { content: [{ type: 'text', text: name }] },
            };
            res.end(`id: ${name}-2\ndata: ${JSON.stringify(answer)}\n\n`);
          },
        },
      ),
    );
    const c = client(server.url);
    await c.connect();
    const answers = await Promise.all(
      ['large', 'plain', 'small'].map((name) => c.callTool({ name, arguments: {} })),
    );
    assert.deepEqual(answers.map(text), ['large', 'plain', 'small']);
    assert.deepEqual(resumed, ['small', 'plain', 'large'], 'resumed in the order of their retry: delays');
  });
});
