// The demo server (examples/demo-server.mjs) over Streamable HTTP on 127.0.0.1, for the examples'
// MCP_SERVER_URL and MCP_OAUTH_SERVER_URL. Stateless: each JSON-RPC request POSTed to /mcp gets a
// fresh demo server process (the demo server keeps no state), its notifications and its answer
// streamed back as server-sent events; notifications get 202. Both eras work, as on stdio.
// With `auth`, the endpoint is a protected resource of that authorization server: 401 with an
// RFC 9728 challenge until a Bearer token it issued comes, its metadata path-inserted.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { AuthServer } from '../fixtures/auth/authorization-server.js';

export interface DemoHttp {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs one request through a demo server process, streaming what it writes as SSE events. */
function relay(demo: string, message: { id: unknown }, line: string, res: ServerResponse): void {
  const child = spawn(process.execPath, [demo], { stdio: ['pipe', 'pipe', 'ignore'] });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  const stop = () => child.kill('SIGKILL');
  res.once('close', stop);
  child.once('error', () => res.destroy());
  createInterface({ input: child.stdout }).on('line', (text) => {
    res.write(`event: message\ndata: ${text}\n\n`);
    const answer = JSON.parse(text) as { id?: unknown; method?: string };
    if (answer.method === undefined && answer.id === message.id) {
      res.off('close', stop);
      res.end();
      child.stdin.end();
    }
  });
  child.stdin.write(`${line}\n`);
}

export async function startDemoHttp(demo: string, auth?: AuthServer): Promise<DemoHttp> {
  let origin = '';
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (auth && path === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [auth.issuer] }));
      return;
    }
    if (path !== '/mcp') return void res.writeHead(404).end();
    if (auth) {
      const header = req.headers.authorization ?? '';
      if (!header.startsWith('Bearer ') || !auth.accessTokens.has(header.slice(7))) {
        const metadata = `${origin}/.well-known/oauth-protected-resource/mcp`;
        res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
        return;
      }
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const body = await readBody(req);
    let message: { id?: unknown; method?: string };
    try {
      message = JSON.parse(body);
    } catch {
      return void res.writeHead(400).end();
    }
    if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
    relay(demo, message as { id: unknown }, JSON.stringify(message), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
