// Hostile HTTP servers in plain Node on 127.0.0.1: oversized bodies and events, silence, error
// pages, resets, wrong types, a redirect to another origin, an expiring session, resumption.
// Each failure must be a typed error or close reason, quickly, with nothing secret in it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, ConnectionClosedError, HttpError, RequestTimeoutError, Secret } from '../../src/index.js';
import { type Handler, json, legacy, modern, plainServer, result, type Seen } from '../helpers/http.js';

const TOKEN = 'tok-3f9a1c77e2';
const KEY = 'key-b81d04aa65';
const MiB = 1024 * 1024;

function client(url: string, transport: Record<string, unknown> = {}, options: Record<string, unknown> = {}) {
  return new Client({
    name: 'hostile',
    transport: {
      type: 'http',
      url,
      headers: { 'X-Api-Key': new Secret(KEY) },
      auth: { bearer: new Secret(TOKEN) },
      ...transport,
    },
    reconnect: { maxReconnects: 1, initialDelay: 10, maxDelay: 20 },
    ...options,
  } as ConstructorParameters<typeof Client>[0]);
}

async function serve(handler: Handler) {
  const server = await plainServer(handler);
  after(() => server.close());
  return server;
}

/** Modern server whose tools/call goes to `onCall`; other requests get an empty result. */
function toolServer(onCall: Handler): Handler {
  return modern((request, res, req) => {
    if (request.message?.method === 'tools/call') return onCall(request, res, req);
    return result(res, request, { tools: [] });
  });
}

function noSecrets(error: unknown): void {
  const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack} ${JSON.stringify((error as HttpError).details ?? {})}`;
  assert.ok(!text.includes(TOKEN), 'the bearer token is not in the error');
  assert.ok(!text.includes(KEY), 'the Secret header is not in the error');
}

const ok = (kind: HttpError['kind'], status?: number) => (error: unknown) => {
  assert.ok(error instanceof HttpError, `expected an HttpError, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  if (status !== undefined) assert.equal(error.status, status);
  noSecrets(error);
  return true;
};

describe('bounded bodies and events', () => {
  test('a 20 MiB JSON body fails with message_too_large while it arrives; the client goes on', async () => {
    let closedEarly = false;
    const server = await serve(
      toolServer(async (request, res) => {
        if (request.message?.params?.name === 'small') return result(res, request, { content: [] });
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to trust
        res.on('close', () => {
          closedEarly = !res.writableFinished;
        });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(request.message?.id)},"result":{"x":"`);
        for (let sent = 0; sent < 20 * MiB && !res.destroyed; sent += chunk.length) {
          if (!res.write(chunk))
            await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
        }
        if (!res.destroyed) res.end('"}}');
      }),
    );
    const c = client(server.url);
    await c.connect();
    const started = performance.now();
    await assert.rejects(c.callTool({ name: 'big', arguments: {} }), (error: unknown) => {
      ok('message_too_large')(error);
      assert.equal((error as HttpError).details.limit, 8 * MiB);
      return true;
    });
    assert.ok(performance.now() - started < 10_000);
    await c.callTool({ name: 'small', arguments: {} });
    await c.close();
    assert.ok(closedEarly, 'the server could not finish writing: we stopped reading at the cap');
  });

  test('an SSE event with no end fails at maxMessageBytes instead of growing memory', async () => {
    let written = 0;
    const server = await serve(
      toolServer(async (_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: ');
        const chunk = Buffer.alloc(16 * 1024, 0x62);
        while (!res.destroyed && written < 20 * MiB) {
          written += chunk.length;
          if (!res.write(chunk))
            await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
        }
      }),
    );
    const c = client(server.url, { maxMessageBytes: MiB });
    await c.connect();
    await assert.rejects(c.callTool({ name: 'endless', arguments: {} }), ok('message_too_large'));
    await c.close();
    assert.ok(written < 20 * MiB, `the stream was dropped after ${written} bytes`);
  });

  test('comment lines and multi-line data are read as SSE; the response ends the request', async () => {
    const server = await serve(
      toolServer((request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        const id = JSON.stringify(request.message?.id);
        res.write(': keep-alive\r\n\r\n');
        res.write(
          `event: message\ndata: {"jsonrpc":"2.0","id":${id},\ndata: "result":{"content":[{"type":"text","text":"ok"}]}}\n\n`,
        );
        res.end();
      }),
    );
    const c = client(server.url);
    await c.connect();
    const answer = (await c.callTool({ name: 't', arguments: {} })) as { content: Array<{ text: string }> };
    assert.equal(answer.content[0]!.text, 'ok');
    await c.close();
  });
});

describe('silence and timeouts', () => {
  test('no response headers: headersTimeout fails the request', async () => {
    const server = await serve(toolServer(() => {}));
    const c = client(server.url, { headersTimeout: 300 });
    await c.connect();
    const started = performance.now();
    await assert.rejects(c.callTool({ name: 'mute', arguments: {} }), ok('timeout'));
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 5000, `${elapsed} ms`);
    await c.close();
  });

  test('JSON headers and then nothing: bodyTimeout fails the request', async () => {
    const server = await serve(
      toolServer((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":');
      }),
    );
    const c = client(server.url, { bodyTimeout: 300 });
    await c.connect();
    await assert.rejects(c.callTool({ name: 'stall', arguments: {} }), ok('timeout'));
    await c.close();
  });

  test('an event stream that stays silent: the request times out, its stream is closed, nothing is POSTed', async () => {
    let streamClosed: () => void;
    const closed = new Promise<void>((resolve) => {
      streamClosed = resolve;
    });
    const server = await serve(
      toolServer((_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': hello\n\n');
        res.on('close', () => streamClosed());
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(
      c.callTool({ name: 'silent', arguments: {} }, { timeout: 300 }),
      (error) => error instanceof RequestTimeoutError,
    );
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await c.close();
    const methods = server.seen.map((s) => s.message?.method);
    assert.ok(!methods.includes('notifications/cancelled'), 'modern HTTP cancels by closing the stream');
  });
});

describe('error statuses and broken answers', () => {
  test('a 500 HTML page becomes an HttpError with the status and a short text excerpt, secrets redacted', async () => {
    const server = await serve(
      toolServer((request, res) => {
        // A careless server that echoes our headers into its error page.
        const page = `<!doctype html><html><head><style>body{}</style></head><body><h1>Internal Server Error</h1><p>auth=${request.headers.authorization} key=${request.headers['x-api-key']}</p>${'<div>filler</div>'.repeat(500)}</body></html>`;
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(page);
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'x', arguments: {} }), (error: unknown) => {
      ok('status', 500)(error);
      const excerpt = (error as HttpError).bodyExcerpt!;
      assert.ok(excerpt.length <= 200, `${excerpt.length} characters`);
      assert.ok(!excerpt.includes('<'), excerpt);
      assert.match(excerpt, /^Internal Server Error auth=Bearer \[Secret\] key=\[Secret\]/);
      assert.equal((error as HttpError).eraSignal, false);
      return true;
    });
    await c.close();
  });

  test('a JSON-RPC error in a 4xx body is the server error (McpError), not an HTTP one', async () => {
    const server = await serve(
      toolServer((_request, res) =>
        json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32602, message: 'bad arguments' } }),
      ),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'x', arguments: {} }), (error: Error & { code?: unknown }) => {
      assert.equal(error.name, 'McpError');
      assert.equal(error.code, -32602);
      return true;
    });
    await c.close();
  });

  test('a connection reset in the middle of an event stream fails that request only', async () => {
    const server = await serve(
      toolServer((request, res) => {
        if (request.message?.params?.name === 'fine') return result(res, request, { content: [] });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half"}}\n\n',
        );
        setTimeout(() => res.socket?.destroy(), 50);
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'reset', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.ok(error.kind === 'stream_broken' || error.kind === 'network', error.kind);
      assert.match(error.message, /tools\/call/);
      return true;
    });
    assert.equal(c.state, 'ready');
    await c.callTool({ name: 'fine', arguments: {} });
    await c.close();
  });

  test('a wrong content type is a content_type error with an excerpt', async () => {
    const server = await serve(
      toolServer((_request, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('hello, not JSON');
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'x', arguments: {} }), (error: unknown) => {
      ok('content_type')(error);
      assert.equal((error as HttpError).bodyExcerpt, 'hello, not JSON');
      return true;
    });
    await c.close();
  });

  test('401 and 5xx to the probe say nothing about the era: no initialize is sent', async () => {
    for (const status of [401, 503]) {
      const server = await serve((_request, res) => json(res, status, { error: 'no' }));
      const c = client(server.url, {}, { reconnect: { maxReconnects: 0 } });
      await assert.rejects(c.connect(), ok('status', status));
      await c.close();
      assert.ok(!server.seen.some((s) => s.message?.method === 'initialize'), `${status}`);
    }
  });
});

describe('broken modern streams', () => {
  test('a read whose stream breaks is sent again with a new id; a tools/call is not', async () => {
    let lists = 0;
    const server = await serve(
      modern((request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const method = request.message?.method;
        if (method === 'tools/list' && ++lists === 1) return void setTimeout(() => res.end(': bye\n\n'), 20);
        if (method === 'tools/list') {
          return void res.end(
            `data: ${JSON.stringify({ jsonrpc: '2.0', id: request.message?.id, result: { tools: [{ name: 'late', inputSchema: { type: 'object' } }] } })}\n\n`,
          );
        }
        res.end(': the tool ran, and then the stream broke\n\n');
      }),
    );
    const c = client(server.url, {}, { cache: false });
    await c.connect();
    assert.deepEqual(
      (await c.listTools()).tools.map((t) => t.name),
      ['late'],
    );
    const [first, second] = server.seen.filter((s) => s.message?.method === 'tools/list');
    assert.notEqual(first!.message!.id, second!.message!.id, 'the re-issue has a new id');
    await assert.rejects(c.callTool({ name: 'once', arguments: {} }), (error: unknown) => {
      ok('stream_broken')(error);
      assert.match((error as Error).message, /may have run, so it is not sent again/);
      return true;
    });
    assert.equal(server.seen.filter((s) => s.message?.method === 'tools/call').length, 1);
    await c.close();
  });
});

describe('redirects', () => {
  test('a redirect to another origin is not followed: nothing, secret or not, reaches it', async () => {
    const elsewhere = await serve((request, res) => result(res, request, { content: [] }));
    const server = await serve(
      toolServer((_request, res) => {
        res.writeHead(307, { location: `${elsewhere.origin}/mcp` });
        res.end();
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'x', arguments: {} }), (error: unknown) => {
      ok('redirect', 307)(error);
      assert.match((error as Error).message, /another origin/);
      return true;
    });
    await c.close();
    assert.equal(elsewhere.seen.length, 0);
  });

  test('a same-origin 307 is followed with its method, body and headers', async () => {
    const server = await serve((request, res) => {
      if (request.url === '/mcp') {
        res.writeHead(307, { location: '/v2/mcp' });
        return void res.end();
      }
      return modern((r, s) => result(s, r, { content: [{ type: 'text', text: 'moved' }] }))(
        request,
        res,
        undefined as never,
      );
    });
    const c = client(server.url);
    await c.connect();
    const answer = (await c.callTool({ name: 'x', arguments: {} })) as { content: Array<{ text: string }> };
    assert.equal(answer.content[0]!.text, 'moved');
    await c.close();
    const moved = server.seen.filter((s) => s.url === '/v2/mcp');
    assert.ok(
      moved.every((s) => s.headers.authorization === `Bearer ${TOKEN}` && s.headers['x-api-key'] === KEY),
    );
    assert.equal(moved.at(-1)!.message?.method, 'tools/call');
  });

  test('same-origin redirects past five, or a POST turned into a GET, are not followed', async () => {
    const server = await serve((request, res) => {
      const hop = /^\/loop\/(\d+)$/.exec(request.url ?? '');
      if (hop) {
        res.writeHead(307, { location: `/loop/${Number(hop[1]) + 1}` });
        return void res.end();
      }
      if (request.url === '/see-other') {
        res.writeHead(303, { location: '/mcp' });
        return void res.end();
      }
      return modern((r, s) => result(s, r, {}))(request, res, undefined as never);
    });
    const looping = client(`${server.origin}/loop/0`, {}, { reconnect: { maxReconnects: 0 } });
    await assert.rejects(looping.connect(), (error: unknown) => {
      ok('redirect', 307)(error);
      assert.match((error as Error).message, /more than 5 times/);
      return true;
    });
    assert.equal(server.seen.filter((s) => s.url?.startsWith('/loop/')).length, 5);
    const changed = client(`${server.origin}/see-other`, {}, { reconnect: { maxReconnects: 0 } });
    await assert.rejects(changed.connect(), (error: unknown) => {
      ok('redirect', 303)(error);
      assert.match((error as Error).message, /change of method/);
      return true;
    });
    assert.equal(server.seen.filter((s) => s.url === '/mcp').length, 0);
  });
});

/** The legacy server of the helpers: tools/call goes to `onCall`, session `s1` expires on demand. */
function legacyServer(options: {
  onCall: (request: Seen, res: import('node:http').ServerResponse, session: string) => void;
  onGet?: Handler;
  expired?: () => boolean;
}): Handler {
  return legacy(
    (request, res, session) => {
      if (request.message?.method === 'tools/call') return options.onCall(request, res, String(session));
      result(res, request, { tools: [] });
    },
    { onGet: options.onGet, expiredSession: () => (options.expired?.() ? 's1' : undefined) },
  );
}

describe('legacy sessions and resumption', () => {
  test('a session that expires (404) with requests in flight: each fails typed; the refused one is served by the new session', async () => {
    let expired = false;
    const server = await serve(
      legacyServer({
        expired: () => expired,
        onCall: (request, res, session) => {
          if (request.message?.params?.name === 'hang') {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            return void res.write(': working\n\n');
          }
          result(res, request, { content: [{ type: 'text', text: session }] });
        },
      }),
    );
    const c = client(server.url);
    await c.connect();
    assert.equal(c.era, 'legacy');
    const inFlight = [1, 2, 3].map(() => c.callTool({ name: 'hang', arguments: {} }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expired = true;
    // The 404 proves the server never ran it: it goes once more, on the new session.
    const trigger = c.callTool({ name: 'echo', arguments: {} });
    for (const call of inFlight) {
      await assert.rejects(
        call,
        (error) => error instanceof ConnectionClosedError && error.reason.type === 'session_expired',
      );
    }
    assert.equal(((await trigger) as { content: Array<{ text: string }> }).content[0]!.text, 's2');
    const answer = (await c.callTool({ name: 'echo', arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    assert.equal(answer.content[0]!.text, 's2', 'served by the new session');
    await c.close();
  });

  test('retry: and Last-Event-ID: a stream cut before its response is resumed by GET after the delay', async () => {
    let cutAt = 0;
    let resumedAt = 0;
    let pending: unknown;
    const server = await serve(
      legacyServer({
        onCall: (request, res) => {
          pending = request.message?.id;
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('id: ev-1\nretry: 400\ndata:\n\n');
          setTimeout(() => {
            cutAt = performance.now();
            res.end();
          }, 30);
        },
        onGet: (request, res) => {
          if (request.headers['last-event-id'] !== 'ev-1') return void res.writeHead(405).end();
          resumedAt = performance.now();
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            `id: ev-2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result: { content: [{ type: 'text', text: 'resumed' }] } })}\n\n`,
          );
        },
      }),
    );
    const c = client(server.url);
    await c.connect();
    const answer = (await c.callTool({ name: 'long', arguments: {} })) as {
      content: Array<{ text: string }>;
    };
    assert.equal(answer.content[0]!.text, 'resumed');
    const waited = resumedAt - cutAt;
    assert.ok(waited >= 350 && waited < 3000, `resumed ${waited} ms after the cut`);
    const resume = server.seen.find((s) => s.headers['last-event-id'] === 'ev-1')!;
    assert.equal(resume.method, 'GET');
    assert.equal(resume.headers['mcp-session-id'], 's1');
    assert.equal(resume.headers.authorization, `Bearer ${TOKEN}`);
    await c.close();
  });

  test('a GET that answers 405 is tried once; a stream without an event id is not resumed', async () => {
    const server = await serve(
      legacyServer({
        onCall: (_request, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
          );
        },
      }),
    );
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'cut', arguments: {} }), ok('stream_broken'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await c.close();
    assert.equal(server.seen.filter((s) => s.method === 'GET').length, 1, 'only the standalone GET, once');
  });
});

describe('HTTP+SSE (2024-11-05) endpoint check', () => {
  test('an endpoint event naming another origin closes the transport with a typed reason; nothing is POSTed there', async () => {
    const elsewhere = await serve((_request, res) => void res.writeHead(202).end());
    const server = await serve((request, res) => {
      if (request.method === 'POST') return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: endpoint\ndata: ${elsewhere.origin}/messages?session=1\n\n`);
    });
    const c = client(server.url, {}, { reconnect: { maxReconnects: 0 } });
    await assert.rejects(c.connect(), ok('foreign_endpoint'));
    await c.close();
    assert.equal(elsewhere.seen.length, 0);
  });
});
