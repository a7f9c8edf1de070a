// The HTTP bench server: plain node:http on 127.0.0.1, both eras, no MCP library, so that only
// client differences show. It prints its URL on stdout and exits when stdin ends (its parent died).
//
//   node bench/http-server.mjs
//
// The era is read from each request: a 2026-* MCP-Protocol-Version is modern (server/discover,
// `resultType` on every result; no session); anything else is legacy (`initialize` opens a session
// whose MCP-Session-Id every later request must carry; GET answers 405, DELETE 204).
// Tools: `echo` ({ text } -> one text block holding text) and `bytes` ({ bytes: N, sse?: true } ->
// a result whose JSON-RPC message is exactly N bytes, the same text as bench/server.mjs), as JSON,
// or with `sse: true` as a one-event stream. Everything else answers JSON.
import { createServer } from 'node:http';

const MODERN = '2026-07-28';
const PAYLOAD_UNIT = 'The quick brown fox jumps over the lazy dog; 0123456789 abcdefg ';
const SERVER_INFO = { name: 'conduit-bench-http-server', version: '1.0.0' };
const TOOLS = [
  {
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'bytes',
    inputSchema: {
      type: 'object',
      properties: { bytes: { type: 'integer' }, sse: { type: 'boolean' } },
      required: ['bytes'],
    },
  },
];
const sessions = new Set();
let sessionCount = 0;
const payloads = new Map();

function payloadText(length) {
  let text = payloads.get(length);
  if (text === undefined) {
    text = PAYLOAD_UNIT.repeat(Math.ceil(length / PAYLOAD_UNIT.length)).slice(0, length);
    if (payloads.size > 8) payloads.clear();
    payloads.set(length, text);
  }
  return text;
}

function send(res, text, sse, headers) {
  if (sse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    res.end(`data: ${text}\n\n`);
    return;
  }
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function fail(res, status, code, message, id = null) {
  const text = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function handle(req, res, body) {
  let message;
  try {
    message = JSON.parse(body);
  } catch {
    return fail(res, 400, -32700, 'Parse error');
  }
  const version = req.headers['mcp-protocol-version'];
  const modern = typeof version === 'string' && version.startsWith('2026');
  if (modern && req.headers['mcp-method'] !== undefined && req.headers['mcp-method'] !== message.method) {
    return fail(res, 400, -32020, 'Mcp-Method does not match the body', message.id ?? null);
  }
  if (!modern && message.method !== 'initialize' && !sessions.has(req.headers['mcp-session-id'])) {
    return fail(res, 400, -32000, 'Bad Request: no valid session id');
  }
  if (message.id === undefined) return void res.writeHead(202).end();
  const reply = (result, headers = {}, sse = false) =>
    send(
      res,
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: modern ? { resultType: 'complete', ...result } : result,
      }),
      sse,
      headers,
    );
  switch (message.method) {
    case 'server/discover':
      if (!modern) break;
      return reply({
        supportedVersions: [MODERN],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      });
    case 'initialize': {
      const id = `bench-session-${++sessionCount}`;
      sessions.add(id);
      const asked = message.params?.protocolVersion;
      return reply(
        {
          protocolVersion: ['2025-06-18', '2025-03-26'].includes(asked) ? asked : '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: SERVER_INFO,
        },
        { 'mcp-session-id': id },
      );
    }
    case 'ping':
      return reply({});
    case 'tools/list':
      return reply({ tools: TOOLS });
    case 'tools/call': {
      const args = message.params?.arguments ?? {};
      if (message.params?.name === 'echo') {
        return reply({ content: [{ type: 'text', text: String(args.text ?? '') }] });
      }
      if (message.params?.name === 'bytes') {
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{${modern ? '"resultType":"complete",' : ''}"content":[{"type":"text","text":"`;
        const tail = '"}]}}';
        const length = Number(args.bytes) - head.length - tail.length;
        if (!Number.isInteger(length) || length < 0) {
          return fail(res, 200, -32602, 'bytes too small', message.id);
        }
        return send(res, head + payloadText(length) + tail, args.sse === true, {});
      }
      return fail(res, 200, -32602, `unknown tool ${message.params?.name}`, message.id);
    }
  }
  return fail(res, modern ? 404 : 200, -32601, `Method not found: ${message.method}`, message.id);
}

const server = createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(405).end();
  if (req.method === 'DELETE') {
    sessions.delete(req.headers['mcp-session-id']);
    return void res.writeHead(204).end();
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () =>
    handle(req, res, chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString()),
  );
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`));
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
