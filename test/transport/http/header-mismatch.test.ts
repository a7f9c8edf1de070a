// HeaderMismatch (-32020) on a modern tools/call: the client reads tools/list again (the tool's
// x-mcp-header annotations may have changed, or were never seen) and sends the call once more
// with the headers of the current schema; never more than once per call. Real servers on loopback.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client, McpError } from '../../../src/index.js';
import { type Handler, json, modern, plainServer, result, type Seen } from '../../helpers/http.js';
import { textOf, waitFor } from '../../helpers/wait.js';

const ANNOTATED = {
  name: 'deploy',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, app: { type: 'string' } },
  },
};
const PLAIN = { name: 'deploy', inputSchema: { type: 'object', properties: { region: { type: 'string' } } } };

/** A header value as the spec encodes it, decoded (`=?base64?...?=` or plain). */
function decoded(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : value;
}

function headerMismatch(res: Parameters<Handler>[1], request: Seen): void {
  json(res, 400, {
    jsonrpc: '2.0',
    id: request.message?.id,
    error: {
      code: -32020,
      message: 'Header mismatch: Mcp-Param-Region is missing or does not match the body',
    },
  });
}

/** A modern server that checks Mcp-Param-Region against the body whenever `annotated()` says so. */
async function deployServer(options: { tools: () => unknown[]; annotated: () => boolean; list?: Handler }) {
  const server = await plainServer(
    modern((request, res, req) => {
      const method = request.message?.method;
      if (method === 'tools/list') {
        if (options.list) return options.list(request, res, req);
        return result(res, request, { resultType: 'complete', tools: options.tools() });
      }
      if (method === 'tools/call') {
        const region = (request.message?.params?.arguments as { region?: string } | undefined)?.region;
        if (options.annotated() && decoded(request.headers['mcp-param-region']) !== region) {
          return headerMismatch(res, request);
        }
        return result(res, request, {
          resultType: 'complete',
          content: [{ type: 'text', text: `deployed to ${region}` }],
        });
      }
      return result(res, request, { resultType: 'complete' });
    }),
  );
  after(() => server.close());
  return server;
}

function client(url: string) {
  return new Client({ name: 'mismatch', transport: { type: 'http', url }, cache: false });
}

const methods = (seen: Seen[]) => seen.map((s) => s.message?.method).filter((m) => m !== undefined);

describe('HeaderMismatch (-32020) on tools/call', () => {
  test('a schema that gained an x-mcp-header since tools/list: one tools/list, one retry with the header', async () => {
    let annotated = false;
    const server = await deployServer({
      tools: () => [annotated ? ANNOTATED : PLAIN],
      annotated: () => annotated,
    });
    const c = client(server.url);
    await c.connect();
    await c.listTools();
    annotated = true; // the server's schema changes after the client listed it
    const answer = await c.callTool({ name: 'deploy', arguments: { region: 'us-west1', app: 'web' } });
    assert.equal(textOf(answer), 'deployed to us-west1');
    const calls = server.seen.filter((s) => s.message?.method === 'tools/call');
    assert.equal(calls.length, 2);
    assert.equal(calls[0]!.headers['mcp-param-region'], undefined);
    assert.equal(calls[1]!.headers['mcp-param-region'], 'us-west1');
    assert.equal(
      calls[1]!.message?.id,
      calls[0]!.message?.id,
      'the answered request is sent again as it was',
    );
    const lists = server.seen.filter((s) => s.message?.method === 'tools/list');
    assert.equal(lists.length, 2, 'the client listing, then the one after the mismatch');
    const refresh = lists[1]!;
    assert.equal(refresh.headers['mcp-method'], 'tools/list');
    assert.equal(refresh.headers['mcp-protocol-version'], '2026-07-28');
    const meta = refresh.message?.params?._meta as Record<string, unknown>;
    assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28', 'the full envelope');
    assert.ok(meta['io.modelcontextprotocol/clientInfo']);
    // Later calls carry the header from the start.
    await c.callTool({ name: 'deploy', arguments: { region: 'eu-central1' } });
    assert.equal(server.seen.filter((s) => s.message?.method === 'tools/call').length, 3);
    await c.close();
  });

  test('a tool called without ever listing it: the mismatch path finds its headers', async () => {
    const server = await deployServer({ tools: () => [ANNOTATED], annotated: () => true });
    const c = client(server.url);
    await c.connect();
    const answer = await c.callTool({ name: 'deploy', arguments: { region: 'Hello, 世界' } });
    assert.equal(textOf(answer), 'deployed to Hello, 世界');
    assert.deepEqual(methods(server.seen), ['server/discover', 'tools/call', 'tools/list', 'tools/call']);
    assert.equal(server.seen.at(-1)!.headers['mcp-param-region'], '=?base64?SGVsbG8sIOS4lueVjA==?=');
    await c.close();
  });

  test('the tool on the second page of tools/list: pages are read until it shows up', async () => {
    const server = await deployServer({
      tools: () => [],
      annotated: () => true,
      list: (request, res) => {
        const cursor = request.message?.params?.cursor;
        if (cursor === undefined) {
          return result(res, request, {
            resultType: 'complete',
            tools: [{ name: 'other', inputSchema: { type: 'object' } }],
            nextCursor: 'page-2',
          });
        }
        assert.equal(cursor, 'page-2');
        return result(res, request, { resultType: 'complete', tools: [ANNOTATED], nextCursor: 'page-3' });
      },
    });
    const c = client(server.url);
    await c.connect();
    await c.callTool({ name: 'deploy', arguments: { region: 'ap-south1' } });
    assert.deepEqual(methods(server.seen), [
      'server/discover',
      'tools/call',
      'tools/list',
      'tools/list',
      'tools/call',
    ]);
    await c.close();
  });

  test('a server that always answers -32020: one retry only, then the server error', async () => {
    const server = await deployServer({ tools: () => [PLAIN], annotated: () => true });
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'deploy', arguments: { region: 'x' } }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32020);
      assert.match(error.message, /Header mismatch/);
      return true;
    });
    assert.deepEqual(methods(server.seen), ['server/discover', 'tools/call', 'tools/list', 'tools/call']);
    await c.close();
  });

  test('a tools/list that fails after the mismatch: the -32020 stands, the call is not sent again', async () => {
    const server = await deployServer({
      tools: () => [],
      annotated: () => true,
      list: (_request, res) => {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end('<html><body><h1>500 Internal Server Error</h1></body></html>');
      },
    });
    const c = client(server.url);
    await c.connect();
    await assert.rejects(c.callTool({ name: 'deploy', arguments: { region: 'x' } }), (error: unknown) => {
      assert.ok(error instanceof McpError && error.code === -32020, String(error));
      return true;
    });
    assert.deepEqual(methods(server.seen), ['server/discover', 'tools/call', 'tools/list']);
    await c.close();
  });

  test('cancelling the call while its tools/list is under way ends both; nothing more is sent', async () => {
    let listClosed = false;
    const server = await deployServer({
      tools: () => [],
      annotated: () => true,
      list: (_request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': working\n\n');
        res.on('close', () => {
          listClosed = true;
        });
      },
    });
    const c = client(server.url);
    await c.connect();
    const controller = new AbortController();
    const call = c.callTool({ name: 'deploy', arguments: { region: 'x' } }, { signal: controller.signal });
    await waitFor(() => methods(server.seen).includes('tools/list'), 'the tools/list after the mismatch');
    controller.abort();
    await assert.rejects(
      call,
      (error: unknown) => (error as Error).name === 'AbortError' || /abort/i.test(String(error)),
    );
    await waitFor(() => listClosed, 'the tools/list stream to be closed');
    assert.deepEqual(methods(server.seen), ['server/discover', 'tools/call', 'tools/list']);
    await c.close();
  });

  test('a legacy session is left alone: -32020 from a legacy server is just the server error', async () => {
    const server = await plainServer((request, res) => {
      const method = request.message?.method;
      if (method === 'initialize') {
        return result(
          res,
          request,
          {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'l', version: '1' },
          },
          { 'mcp-session-id': 'abc' },
        );
      }
      if (method === 'tools/call') return headerMismatch(res, request);
      if (request.message?.id === undefined) return void res.writeHead(202).end();
      if (request.method === 'GET') return void res.writeHead(405).end();
      return result(res, request, {});
    });
    after(() => server.close());
    const c = new Client({
      name: 'legacy',
      protocol: 'legacy',
      transport: { type: 'http', url: server.url },
    });
    await c.connect();
    await assert.rejects(c.callTool({ name: 'deploy', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError && error.code === -32020, String(error));
      return true;
    });
    assert.ok(!methods(server.seen).includes('tools/list'));
    await c.close();
  });
});
