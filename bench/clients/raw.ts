// The raw baseline, the floor: spawn the server, write lines, read lines; no library, no timeouts,
// no validation. In the modern era it sends the full envelope on every request, as a real client
// must: protocol version, client capabilities and client info in each request's `_meta`.
//
// `detached`: the server gets its own session and process group, as conduit-mcp spawns it (so that
// shutdown can signal the whole tree). On Linux with sched_autogroup_enabled=1 a new session is a
// new scheduling autogroup, and on a loaded machine that alone makes every round trip slower (2x
// to 3x sequential, measured): the floor must pay it too for the ratio to measure our code.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import {
  CLIENT_INFO,
  type ClientId,
  type ClientKind,
  minimalEnvironment,
  type ServerSpec,
  serverArgs,
  textOf,
} from './types.js';

const MODERN_VERSION = '2026-07-28';

class RawConnection {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #pending = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  readonly #modern: boolean;
  #nextId = 0;
  #held: Buffer[] = [];
  closedBecause: string | undefined;

  constructor(spec: ServerSpec, detached: boolean) {
    this.#modern = spec.mode === 'modern';
    this.child = spawn(process.execPath, serverArgs(spec), {
      env: minimalEnvironment(),
      stdio: ['pipe', 'pipe', 'inherit'],
      detached,
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.child.stdin.on('error', () => {});
    this.child.on('exit', () => {
      this.closedBecause ??= 'exit';
      for (const entry of this.#pending.values()) entry.reject(new Error('the server exited'));
      this.#pending.clear();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      let line: string;
      if (this.#held.length > 0) {
        this.#held.push(chunk.subarray(start, newline));
        line = Buffer.concat(this.#held).toString('utf8');
        this.#held = [];
      } else {
        line = chunk.toString('utf8', start, newline);
      }
      this.#onLine(line);
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.#held.push(start === 0 ? chunk : chunk.subarray(start));
  }

  #onLine(line: string): void {
    const message = JSON.parse(line) as {
      id?: number;
      result?: unknown;
      error?: { code: number; message: string };
    };
    const entry = message.id === undefined ? undefined : this.#pending.get(message.id);
    if (!entry) return;
    this.#pending.delete(message.id!);
    if (message.error) entry.reject(new Error(`${message.error.code} ${message.error.message}`));
    else entry.resolve(message.result);
  }

  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.#nextId++;
    const sent = this.#modern
      ? {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
            // The same capabilities conduit-mcp declares, so that both put the same bytes on the wire.
            'io.modelcontextprotocol/clientCapabilities': {
              extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
            },
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
          },
        }
      : params;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: sent })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async call(name: string, args: Record<string, unknown>): Promise<string> {
    return textOf(await this.request('tools/call', { name, arguments: args }));
  }

  async close(): Promise<void> {
    this.child.stdin.end();
  }
}

export const rawPipe = (id: ClientId, label: string, detached: boolean): ClientKind => ({
  id,
  label,
  mode: 'knows the era',
  load: async () => undefined,
  async connect(spec) {
    const connection = new RawConnection(spec, detached);
    await new Promise<void>((resolve, reject) => {
      connection.child.once('spawn', resolve);
      connection.child.once('error', reject);
    });
    if (spec.mode === 'modern') {
      await connection.request('server/discover', {});
    } else {
      await connection.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      connection.notify('notifications/initialized');
    }
    return connection;
  },
});
