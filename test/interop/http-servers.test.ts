// Published MCP servers over HTTP on loopback: the official SDK 1.x StreamableHTTPServerTransport
// (stateful and stateless) and SSEServerTransport (2024-11-05), the SDK 2.x dual-era handler, and
// a Python FastMCP server. What each one received is checked header by header.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, type ClientHandlers, ConnectionClosedError } from '../../src/index.js';
import { type RecordedRequest, startSdkV1, startSdkV2 } from '../fixtures/http/sdk-servers.js';
import { startPythonHttp } from '../helpers/http.js';

const elicitation: NonNullable<ClientHandlers['elicitation']> = async () => ({
  action: 'accept',
  content: { name: 'Ada' },
});

function httpClient(url: string, extra: Record<string, unknown> = {}) {
  return new Client({
    name: 'remote',
    transport: { type: 'http', url, ...extra },
    handlers: { elicitation },
    reconnect: { maxReconnects: 2, initialDelay: 10, maxDelay: 50 },
  });
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;
const rpc = (request: RecordedRequest) => request.body as { method?: string; id?: unknown; result?: unknown };

describe('SDK 1.x StreamableHTTPServerTransport, stateful', () => {
  test('legacy era with a session: the id on every request after initialize, GET stream, DELETE on close', async () => {
    const server = await startSdkV1();
    after(() => server.close());
    const client = httpClient(server.url);
    await client.connect();
    assert.equal(client.era, 'legacy');
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['echo', 'count', 'ask', 'slow'],
    );
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } })), 'héllo');
    const progress: number[] = [];
    const counted = await client.callTool(
      { name: 'count', arguments: { steps: 3 } },
      { onProgress: (p) => progress.push(p.progress) },
    );
    assert.equal(textOf(counted), 'counted 3');
    assert.deepEqual(progress, [1, 2, 3]);
    // The server asks for an elicitation on the call's event stream; we answer with a POST.
    assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'hello Ada');
    await client.close();

    const initialize = server.requests.find((r) => rpc(r).method === 'initialize')!;
    assert.equal(initialize.headers['mcp-session-id'], undefined);
    assert.equal(initialize.headers['mcp-protocol-version'], undefined, 'no version header on initialize');
    const after_ = server.requests.slice(server.requests.indexOf(initialize) + 1);
    const sessionId = after_[0]!.headers['mcp-session-id'];
    assert.match(String(sessionId), /^[0-9a-f-]{36}$/);
    for (const request of after_) {
      assert.equal(request.headers['mcp-session-id'], sessionId, `${request.method} ${rpc(request)?.method}`);
      assert.equal(request.headers['mcp-protocol-version'], '2025-11-25');
    }
    const get = after_.find((r) => r.method === 'GET')!;
    assert.equal(get.headers.accept, 'text/event-stream');
    const answer = after_.find((r) => r.method === 'POST' && rpc(r).result !== undefined);
    assert.ok(answer, 'the elicitation was answered by a POST of a JSON-RPC response');
    assert.equal(server.requests.at(-1)!.method, 'DELETE');
    for (const request of server.requests.filter((r) => r.method === 'POST')) {
      assert.match(String(request.headers.accept), /application\/json/);
      assert.match(String(request.headers.accept), /text\/event-stream/);
      assert.equal(request.headers['content-type'], 'application/json');
    }
  });

  test('an expired session (404): the request fails typed, the client starts a new session and goes on', async () => {
    const server = await startSdkV1();
    after(() => server.close());
    const client = httpClient(server.url);
    const reasons: string[] = [];
    client.on('disconnected', (reason) => reasons.push(reason.type));
    await client.connect();
    await client.callTool({ name: 'echo', arguments: { text: 'one' } });
    const first = server.requests.at(-1)!.headers['mcp-session-id'];
    server.expireSessions();
    await assert.rejects(
      client.callTool({ name: 'echo', arguments: { text: 'two' } }),
      (error) => error instanceof ConnectionClosedError && error.reason.type === 'session_expired',
    );
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'three' } })), 'three');
    const second = server.requests.at(-1)!.headers['mcp-session-id'];
    assert.notEqual(second, first);
    assert.deepEqual(reasons, ['session_expired']);
    const initializes = server.requests.filter((r) => rpc(r)?.method === 'initialize');
    assert.equal(initializes.length, 2);
    assert.equal(
      initializes[1]!.headers['mcp-session-id'],
      undefined,
      'the new initialize carries no old id',
    );
    await client.close();
  });
});

describe('SDK 1.x StreamableHTTPServerTransport, stateless', () => {
  test('legacy era without a session id; the GET that answers 405 is not retried', async () => {
    const server = await startSdkV1({ stateless: true });
    after(() => server.close());
    const client = httpClient(server.url);
    await client.connect();
    assert.equal(client.era, 'legacy');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } })), 'x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.close();
    assert.ok(server.requests.every((r) => r.headers['mcp-session-id'] === undefined));
    assert.equal(server.requests.filter((r) => r.method === 'GET').length, 1);
    assert.equal(server.requests.filter((r) => r.method === 'DELETE').length, 0, 'no session, no DELETE');
  });
});

describe('SDK 1.x SSEServerTransport (2024-11-05)', () => {
  test('the HTTP+SSE fallback: POST refused, GET opens the stream, the endpoint event names where to POST', async () => {
    const server = await startSdkV1({ sse: true });
    after(() => server.close());
    const client = httpClient(server.url);
    await client.connect();
    assert.equal(client.era, 'legacy');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'sse' } })), 'sse');
    assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'hello Ada');
    await client.close();
    const paths = server.requests.map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(paths.slice(0, 4), ['POST /sse', 'POST /sse', 'GET /sse', 'POST /messages']);
  });

  test('legacySse: false: the fallback is not tried and connect fails with the HTTP status', async () => {
    const server = await startSdkV1({ sse: true });
    after(() => server.close());
    const client = httpClient(server.url, { legacySse: false });
    await assert.rejects(client.connect(), (error: Error & { status?: number }) => {
      assert.equal(error.name, 'HttpError');
      assert.equal(error.status, 404);
      return true;
    });
    await client.close();
    assert.equal(server.requests.filter((r) => r.method === 'GET').length, 0);
  });
});

describe('SDK 2.x createMcpHandler (dual era)', () => {
  test('modern era: every POST carries the version, Mcp-Method and Mcp-Name; no session, GET or DELETE', async () => {
    const server = await startSdkV2();
    after(() => server.close());
    const client = httpClient(server.url);
    await client.connect();
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'modern' } })), 'modern');
    const progress: number[] = [];
    await client.callTool(
      { name: 'count', arguments: { steps: 2 } },
      { onProgress: (p) => progress.push(p.progress) },
    );
    assert.deepEqual(progress, [1, 2]);
    await client.close();
    assert.ok(server.requests.every((r) => r.method === 'POST'));
    for (const request of server.requests) {
      const body = rpc(request) as {
        method: string;
        params: { name?: string; _meta: Record<string, unknown> };
      };
      assert.equal(request.headers['mcp-protocol-version'], '2026-07-28');
      assert.equal(
        request.headers['mcp-protocol-version'],
        body.params._meta['io.modelcontextprotocol/protocolVersion'],
      );
      assert.equal(request.headers['mcp-method'], body.method);
      assert.equal(request.headers['mcp-name'], body.method === 'tools/call' ? body.params.name : undefined);
      assert.equal(request.headers['mcp-session-id'], undefined);
    }
  });

  test('protocol: legacy talks to its stateless legacy fallback', async () => {
    const server = await startSdkV2();
    after(() => server.close());
    const client = new Client({
      name: 'remote',
      transport: { type: 'http', url: server.url },
      protocol: 'legacy',
    });
    await client.connect();
    assert.equal(client.era, 'legacy');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'old' } })), 'old');
    await client.close();
  });
});

describe('Python FastMCP over Streamable HTTP', () => {
  for (const mode of ['stateful', 'stateless'] as const) {
    test(`${mode}: tools, resources and prompts from a server in another language`, async () => {
      const server = await startPythonHttp(mode === 'stateless' ? ['--stateless'] : []);
      after(() => server.close());
      const client = httpClient(server.url);
      await client.connect();
      assert.ok(client.era === 'legacy' || client.era === 'modern');
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['add', 'echo']);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'snake' } })), 'snake');
      assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })), '42');
      const read = await client.readResource({ uri: 'memo://greeting' });
      assert.equal((read.contents[0] as { text: string }).text, 'hello from python');
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      assert.match(JSON.stringify(prompt.messages), /Say hello to Ada/);
      await client.close();
    });
  }
});
