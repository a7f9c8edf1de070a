// Two modern-era rules over HTTP, on real servers on loopback: a -32022 answer naming a modern
// version we implement makes the client probe again with that version (after server/discover, or
// after initialize), and a tool whose x-mcp-header annotation is invalid is left out of listTools().
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '../../../src/index.js';
import { LATEST_MODERN_VERSION } from '../../../src/protocol/versions.js';
import {
  DISCOVER_RESULT,
  type Handler,
  json,
  modern,
  plainServer,
  result,
  type Seen,
} from '../../helpers/http.js';

async function serve(handler: Handler) {
  const server = await plainServer(handler);
  after(() => server.close());
  return server;
}

function client(url: string, protocol: 'auto' | 'legacy' = 'auto') {
  const c = new Client({
    name: 'era',
    transport: { type: 'http', url },
    protocol,
    reconnect: { maxReconnects: 0 },
  });
  after(() => c.close());
  return c;
}

const unsupported = (request: Seen, status: number, supported: string[]) => ({
  status,
  body: {
    jsonrpc: '2.0',
    id: request.message?.id,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: 'x' } },
  },
});

const metaVersion = (seen: Seen) =>
  (seen.message?.params?._meta as Record<string, unknown> | undefined)?.[
    'io.modelcontextprotocol/protocolVersion'
  ];

describe('-32022 naming a modern version: probe again with it', () => {
  test('after server/discover (a server that refuses a first request as a test)', async () => {
    let discovers = 0;
    const server = await serve((request, res) => {
      if (request.message?.method !== 'server/discover') return result(res, request, { tools: [] });
      discovers += 1;
      if (discovers === 1) {
        const answer = unsupported(request, 400, [LATEST_MODERN_VERSION, '2025-11-25']);
        return json(res, answer.status, answer.body);
      }
      return result(res, request, DISCOVER_RESULT);
    });
    const c = client(server.url);
    await c.connect();
    assert.equal(c.era, 'modern');
    assert.equal(c.protocolVersion, LATEST_MODERN_VERSION);
    const posted = server.seen.filter((s) => s.method === 'POST');
    assert.deepEqual(
      posted.map((s) => s.message?.method),
      ['server/discover', 'server/discover'],
      'no initialize: the server said it is modern',
    );
    assert.equal(posted[1]!.headers['mcp-protocol-version'], LATEST_MODERN_VERSION);
    assert.equal(metaVersion(posted[1]!), LATEST_MODERN_VERSION);
  });

  test('after initialize (protocol legacy against a modern-only server)', async () => {
    const server = await serve((request, res) => {
      const method = request.message?.method;
      if (method === 'initialize') {
        const answer = unsupported(request, 200, [LATEST_MODERN_VERSION]);
        return json(res, answer.status, answer.body);
      }
      if (method === 'server/discover') return result(res, request, DISCOVER_RESULT);
      return result(res, request, { tools: [] });
    });
    const c = client(server.url, 'legacy');
    await c.connect();
    assert.equal(c.era, 'modern');
    const posted = server.seen.filter((s) => s.method === 'POST');
    assert.deepEqual(
      posted.map((s) => s.message?.method),
      ['initialize', 'server/discover'],
    );
    assert.equal(posted[1]!.headers['mcp-protocol-version'], LATEST_MODERN_VERSION);
    assert.equal(metaVersion(posted[1]!), LATEST_MODERN_VERSION);
  });
});

describe('x-mcp-header annotations', () => {
  test('a tool with an invalid one is left out of listTools(), with a warning; the valid one is called with its header', async () => {
    const tools = [
      {
        name: 'good',
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      {
        name: 'bad',
        inputSchema: {
          type: 'object',
          properties: { region: { type: 'string', 'x-mcp-header': 'My Region' } },
        },
      },
    ];
    const server = await serve(
      modern((request, res) => {
        if (request.message?.method === 'tools/list')
          return result(res, request, { resultType: 'complete', tools });
        return result(res, request, { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] });
      }),
    );
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as { code?: string }).code === 'CONDUIT_INVALID_TOOL_HEADER') warnings.push(warning);
    };
    process.on('warning', onWarning);
    after(() => process.off('warning', onWarning));
    const c = client(server.url);
    await c.connect();
    const listed = await c.listTools();
    assert.deepEqual(
      listed.tools.map((tool) => tool.name),
      ['good'],
    );
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /"bad" left out of tools\/list: .*not a valid header name/);
    await c.callTool({ name: 'good', arguments: { region: 'eu-west' } });
    const call = server.seen.find((s) => s.message?.method === 'tools/call')!;
    assert.equal(call.headers['mcp-param-region'], 'eu-west');
  });
});
