// HTTP test helpers: plain-Node servers on 127.0.0.1 that record every request, and the Python
// FastMCP server over Streamable HTTP as a child process.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { requirePython } from './python.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The JSON-RPC message, when the body is one. */
  message: { id?: unknown; method?: string; params?: Record<string, unknown> } | undefined;
}

export interface PlainServer {
  url: string;
  origin: string;
  seen: Seen[];
  server: Server;
  close(): Promise<void>;
}

export type Handler = (request: Seen, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

/** A plain node:http server on 127.0.0.1 that records each request (whole body read) before `handler`. */
export async function plainServer(handler: Handler): Promise<PlainServer> {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let message: Seen['message'];
    try {
      message = body ? JSON.parse(body) : undefined;
    } catch {
      message = undefined;
    }
    const request: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body,
      message,
    };
    seen.push(request);
    try {
      await handler(request, res, req);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    seen,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** A JSON-RPC result for `request`, as JSON. */
export function result(
  res: ServerResponse,
  request: Seen,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  json(res, 200, { jsonrpc: '2.0', id: request.message?.id, result: value }, headers);
}

export const DISCOVER_RESULT = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'plain', version: '1.0.0' } },
};

/** Answers server/discover as a modern server; everything else goes to `rest`. */
export function modern(rest: Handler): Handler {
  return (request, res, req) => {
    if (request.message?.method === 'server/discover') return result(res, request, DISCOVER_RESULT);
    return rest(request, res, req);
  };
}

export interface PythonServer {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** The FastMCP server of test/fixtures/python over Streamable HTTP; resolves once it listens. */
export async function startPythonHttp(args: string[] = []): Promise<PythonServer> {
  const script = path.resolve(import.meta.dirname, '../fixtures/python/fastmcp_http_server.py');
  const child = spawn(requirePython(), [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('the Python server did not start within 30 s')), 30_000);
    lines.once('line', (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    child.once('exit', (code) => reject(new Error(`the Python server exited with ${code} before listening`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    pid: child.pid!,
    close: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export const INITIALIZE_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {}, logging: {} },
  serverInfo: { name: 'legacy', version: '1.0.0' },
};

/**
 * A legacy (2025-11-25) Streamable HTTP server: server/discover refused with 400 (no era signal
 * beyond it), sessions `s1`, `s2`, ... issued by initialize, 202 for notifications, 405 for GET
 * unless `onGet`, 404 for every message of the session `expiredSession` names; every other request
 * goes to `rest` with the session id it carried.
 */
export function legacy(
  rest: (request: Seen, res: ServerResponse, session: string | undefined) => void | Promise<void>,
  options: {
    onGet?: Handler;
    version?: string;
    /** A session id to refuse with 404 Session not found, every message of it (asked per request). */
    expiredSession?: () => string | undefined;
  } = {},
): Handler {
  let sessions = 0;
  return (request, res, req) => {
    const method = request.message?.method;
    const session = request.headers['mcp-session-id'] as string | undefined;
    if (request.method === 'GET')
      return options.onGet ? options.onGet(request, res, req) : void res.writeHead(405).end();
    if (request.method === 'DELETE') return void res.writeHead(204).end();
    if (method === 'server/discover')
      return json(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Bad Request: Server not initialized' },
      });
    if (method === 'initialize') {
      sessions += 1;
      const version = options.version ?? INITIALIZE_RESULT.protocolVersion;
      return result(
        res,
        request,
        { ...INITIALIZE_RESULT, protocolVersion: version },
        { 'mcp-session-id': `s${sessions}` },
      );
    }
    if (session !== undefined && session === options.expiredSession?.())
      return json(res, 404, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32001, message: 'Session not found' },
      });
    if (request.message?.id === undefined) return void res.writeHead(202).end();
    return rest(request, res, session);
  };
}
