import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { Gateway } from './gateway.js';
import { hostServer } from './host-server.js';
import { takeHttpCall } from './http-direct.js';

/** How the gateway listens over Streamable HTTP, and what it refuses. */
export interface HttpServeOptions {
  /** Address to bind (loopback unless told otherwise). */
  readonly host: string;
  /** Port; 0 picks a free one. */
  readonly port: number;
  /** The bearer token every request must carry; required by the caller for a non-loopback address. */
  readonly token: string | undefined;
  /** Host names the `Host` and `Origin` headers may name (DNS rebinding), besides the loopback ones. */
  readonly allowedHosts: readonly string[];
  /** Largest request body, in bytes (413 above). */
  readonly maxBodyBytes: number;
  /** Requests handled at once (503 above). */
  readonly maxInFlight: number;
}

/** The path the gateway answers MCP on. */
export const MCP_PATH = '/mcp';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A listening gateway: its URL, and how to stop it. */
export interface HttpGateway {
  /** `http://<host>:<port>/mcp`. */
  readonly url: string;
  /** Stops listening, ends the streams open and closes the MCP handler. */
  close(): Promise<void>;
}

/**
 * Serves the gateway over Streamable HTTP with the SDK's handler (createMcpHandler: the modern era
 * per request, the legacy era as stateless requests). In front of it, the gateway's own refusals,
 * each with its status and a message: a Host or Origin not allowed (403), a missing or wrong bearer
 * token (401), a body too large (413), too many requests at once (503), another path (404).
 */
export async function serveHttp(gateway: Gateway, options: HttpServeOptions): Promise<HttpGateway> {
  const handler = createMcpHandler(() => hostServer(gateway), { maxRequestBodySize: options.maxBodyBytes });
  gateway.onListChanged((kind) => {
    if (kind === 'tools') handler.notify.toolsChanged();
    else if (kind === 'prompts') handler.notify.promptsChanged();
    else handler.notify.resourcesChanged();
  });
  const hostnames = [...LOOPBACK_NAMES, ...options.allowedHosts.map(bracketed)];
  const expected = options.token === undefined ? undefined : digest(options.token);
  let inFlight = 0;
  const server: NodeServer = createServer((request, response) => {
    const refusal = refuse(request, hostnames, expected, options.maxBodyBytes);
    if (refusal) return reply(response, ...refusal);
    if (inFlight >= options.maxInFlight) {
      return reply(
        response,
        503,
        `the gateway is handling ${options.maxInFlight} requests already (its in-flight limit); try again`,
      );
    }
    inFlight++;
    response.once('close', () => inFlight--);
    handle(gateway, request, response, handler.fetch, options.maxBodyBytes).catch((error: Error) => {
      if (!response.headersSent) reply(response, 500, `the gateway failed: ${error.message}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${bracketed(options.host)}:${port}${MCP_PATH}`,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The status and message for a request the gateway refuses before reading it, if it does. */
function refuse(
  request: IncomingMessage,
  hostnames: string[],
  expected: Buffer | undefined,
  maxBodyBytes: number,
): [number, string, Record<string, string>?] | undefined {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== MCP_PATH) return [404, `the gateway answers MCP at ${MCP_PATH} only`];
  const host = validateHostHeader(request.headers.host, hostnames);
  if (!host.ok) {
    return [
      403,
      `Host ${JSON.stringify(request.headers.host ?? '')} is not allowed (DNS rebinding protection): ${host.message}; add it with --allow-host`,
    ];
  }
  const origin = request.headers.origin;
  if (origin !== undefined) {
    const checked = validateOriginHeader(origin, hostnames);
    if (!checked.ok)
      return [
        403,
        `Origin ${JSON.stringify(origin)} is not allowed: ${checked.message}; add its host with --allow-host`,
      ];
  }
  if (expected !== undefined) {
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined)
      return [
        401,
        'the gateway needs a bearer token: send Authorization: Bearer <token> (the value of its --token-env variable)',
        { 'www-authenticate': 'Bearer realm="conduit-mcp"' },
      ];
    if (!timingSafeEqual(digest(given), expected))
      return [
        401,
        "the bearer token is not the gateway's (--token-env)",
        { 'www-authenticate': 'Bearer realm="conduit-mcp", error="invalid_token"' },
      ];
  }
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > maxBodyBytes)
    return [
      413,
      `the request body is ${length} bytes, over the gateway's limit of ${maxBodyBytes} (--max-body-bytes)`,
    ];
  return undefined;
}

/**
 * Reads the body within the cap; a legacy host's plain tool call is the gateway's own
 * (takeHttpCall); else it hands the SDK a web Request and streams its Response back.
 */
async function handle(
  gateway: Gateway,
  request: IncomingMessage,
  response: ServerResponse,
  fetch: (request: Request) => Promise<Response>,
  maxBodyBytes: number,
): Promise<void> {
  const read = await readBody(request, maxBodyBytes);
  if (read === 'too large') {
    return reply(
      response,
      413,
      `the request body is over the gateway's limit of ${maxBodyBytes} bytes (--max-body-bytes)`,
    );
  }
  const method = request.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : read;
  if (body !== undefined && takeHttpCall(gateway, request, body, response)) return;
  const aborted = new AbortController();
  response.once('close', () => aborted.abort());
  const requestHeaders = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) requestHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const answer = await fetch(
    new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? MCP_PATH}`, {
      method,
      headers: requestHeaders,
      body,
      signal: aborted.signal,
    }),
  );
  const headers = Object.fromEntries(answer.headers);
  if (answer.body === null) return void response.writeHead(answer.status, headers).end();
  if (!answer.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A whole answer leaves in one write, its length known, rather than as head, chunk and end.
    const whole = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, { ...headers, 'content-length': whole.length });
    return void response.end(whole);
  }
  response.writeHead(answer.status, headers);
  response.flushHeaders();
  Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream)
    .on('error', () => response.destroy())
    .pipe(response);
}

/**
 * The request's body, or 'too large' as soon as it passes `maxBytes` (nothing more is read). Read
 * from its events: an async iterator per request is a measurable part of a plain call's cost.
 */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | 'too large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => request.off('data', onData).off('end', onEnd).off('error', onError);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= maxBytes) return;
      stop();
      request.pause();
      resolve('too large');
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    request.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function reply(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: `conduit-mcp gateway: ${message}` },
  });
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** A fixed-length digest, so that tokens of any length compare in constant time. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
