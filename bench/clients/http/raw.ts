// The raw HTTP floor: undici's `request` on one keep-alive Agent, JSON-RPC by hand, no MCP
// library, no timeouts, no validation. Legacy: initialize, then the session id and version on
// every request. Modern: the full envelope on every request (protocol version, client capabilities
// and client info in `_meta`, serialised each time) and the headers a modern request needs.
import { Agent, request } from 'undici';
import { CLIENT_INFO, textOf } from '../types.js';
import type { HttpBenchServer, HttpClientKind, HttpEra } from './types.js';

const MODERN_VERSION = '2026-07-28';
const LEGACY_VERSION = '2025-11-25';
const NAMED = new Set(['tools/call', 'prompts/get']);

interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** The answer in a JSON body or in the data lines of a one-event stream. */
function parseAnswer(type: string | undefined, text: string): Answer {
  if (!type?.startsWith('text/event-stream')) return JSON.parse(text) as Answer;
  let data = '';
  for (const line of text.split('\n')) if (line.startsWith('data:')) data += line.slice(5).trimStart();
  return JSON.parse(data) as Answer;
}

class RawHttpConnection {
  readonly #agent = new Agent({ keepAliveTimeout: 60_000 });
  readonly #url: string;
  readonly #modern: boolean;
  #nextId = 0;
  #sessionHeaders: Record<string, string> = {};
  readonly pid: number;
  readonly closedBecause = undefined;

  constructor(server: HttpBenchServer, era: HttpEra) {
    this.#url = server.url;
    this.#modern = era === 'modern';
    this.pid = server.pid;
  }

  async #post(body: string, headers: Record<string, string>) {
    const response = await request(this.#url, {
      method: 'POST',
      dispatcher: this.#agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...this.#sessionHeaders,
        ...headers,
      },
      body,
    });
    return { response, text: await response.body.text() };
  }

  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const headers: Record<string, string> = {};
    let sent = params;
    if (this.#modern) {
      sent = {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
          // The same capabilities conduit-mcp declares, so that both put the same bytes on the wire.
          'io.modelcontextprotocol/clientCapabilities': {
            extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
          },
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        },
      };
      headers['mcp-protocol-version'] = MODERN_VERSION;
      headers['mcp-method'] = method;
      if (NAMED.has(method)) headers['mcp-name'] = String(params.name);
    }
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.#nextId++, method, params: sent });
    const { response, text } = await this.#post(body, headers);
    const answer = parseAnswer(response.headers['content-type'] as string | undefined, text);
    if (method === 'initialize') {
      this.#sessionHeaders = {
        'mcp-session-id': String(response.headers['mcp-session-id']),
        'mcp-protocol-version': LEGACY_VERSION,
      };
    }
    if (answer.error) throw new Error(`${answer.error.code} ${answer.error.message}`);
    return answer.result;
  }

  async notify(method: string): Promise<void> {
    await this.#post(JSON.stringify({ jsonrpc: '2.0', method }), {});
  }

  async call(name: string, args: Record<string, unknown>): Promise<string> {
    return textOf(await this.request('tools/call', { name, arguments: args }));
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

export const rawHttp: HttpClientKind = {
  id: 'raw',
  label: 'raw HTTP (undici Agent, no MCP library)',
  load: async () => undefined,
  async connect(server, era) {
    const connection = new RawHttpConnection(server, era);
    if (era === 'modern') {
      await connection.request('server/discover', {});
    } else {
      await connection.request('initialize', {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      await connection.notify('notifications/initialized');
    }
    return connection;
  },
};
