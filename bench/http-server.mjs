// The HTTP bench server: plain node:http on 127.0.0.1, both eras, no MCP library. Prints its URL.
// argv: --sse answers every request as an event stream instead of JSON.
import { createServer } from 'node:http';

const SSE = process.argv.includes('--sse');
const BIG = 'x'.repeat(1024 * 1024);
let sessions = 0;

function answer(res, body, headers = {}) {
  const text = JSON.stringify(body);
  if (SSE) {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
    res.end(`data: ${text}\n\n`);
  } else {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }
}

const server = createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(405).end();
  if (req.method === 'DELETE') return void res.writeHead(204).end();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const modern = String(req.headers['mcp-protocol-version']).startsWith('2026');
    const reply = (result, headers) =>
      answer(
        res,
        { jsonrpc: '2.0', id: message.id, result: modern ? { resultType: 'complete', ...result } : result },
        headers,
      );
    switch (message.method) {
      case 'server/discover':
        if (!req.headers['mcp-protocol-version']?.startsWith('2026')) break;
        return reply({
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
        });
      case 'initialize':
        sessions += 1;
        return reply(
          {
            protocolVersion: message.params.protocolVersion === '2025-06-18' ? '2025-06-18' : '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'bench', version: '1' },
          },
          { 'mcp-session-id': `bench-${sessions}` },
        );
      case 'tools/list':
        return reply({
          tools: [
            { name: 'echo', inputSchema: { type: 'object' } },
            { name: 'big', inputSchema: { type: 'object' } },
          ],
        });
      case 'tools/call': {
        const text = message.params.name === 'big' ? BIG : String(message.params.arguments?.text ?? '');
        return reply({ content: [{ type: 'text', text }] });
      }
      default:
        if (message.id === undefined) return void res.writeHead(202).end();
    }
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Bad Request: Server not initialized' },
      }),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
