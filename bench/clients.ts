// The clients the bench compares, behind one small interface, and what they share: the bench
// server's command line, the minimal environment every server starts with, the payload check, and
// process helpers (is a pid gone, peak and current RSS from /proc).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ClientOptions, ProtocolMode } from '../src/index.js';

// Each library is loaded on first use, so a child process that runs one client holds only that one.
// The promise is kept: a second import() of a loaded module still goes through the loader (with
// tsx, a round trip to its hooks thread, about a millisecond), which would count in connect times.
const once = <T>(load: () => Promise<T>) => {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
};
const loadConduit = once(() => import('../src/index.js'));
const loadSdk1 = once(async () => {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
  ]);
  return { Client, StdioClientTransport };
});
const loadSdk2 = once(async () => {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  return { Client, StdioClientTransport };
});

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_SCRIPT = path.join(root, 'bench/server.mjs');

// ---- the server --------------------------------------------------------------------------------

export type ServerMode = 'legacy' | 'modern' | 'legacy-silent';

export interface ServerSpec {
  readonly mode: ServerMode;
  /** The server stops reading stdin once `notifications/initialized` arrives. */
  readonly stopReadingAfterInit?: boolean;
}

export function serverArgs(spec: ServerSpec): string[] {
  const args = [SERVER_SCRIPT, '--mode', spec.mode];
  if (spec.stopReadingAfterInit) args.push('--stop-reading-after-init');
  return args;
}

/** The variables every client passes on (ours and both official SDKs inherit exactly these). */
const INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/**
 * The environment every server starts with, whichever client spawns it: the POSIX allowlist that
 * conduit-mcp and both official SDKs inherit by default, and nothing else (no NODE_OPTIONS, no
 * NODE_EXTRA_CA_CERTS: they slow every Node start). The raw baseline passes this object.
 */
export function minimalEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

// ---- payloads ----------------------------------------------------------------------------------

/** The same 64-character unit bench/server.mjs repeats for its `bytes` tool. */
const PAYLOAD_UNIT = 'The quick brown fox jumps over the lazy dog; 0123456789 abcdefg ';

/** The envelope of a `bytes` answer around its text, for one id, in each era. */
function bytesEnvelope(id: number | string, modern: boolean): number {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${modern ? '"resultType":"complete",' : ''}"content":[{"type":"text","text":"`;
  return Buffer.byteLength(head) + '"}]}}'.length;
}

const expectedTexts = new Map<number, string>();

/**
 * Throws unless `text` is exactly what the server sends for a `bytes` answer of `size` bytes:
 * the unit repeated and cut to the length the envelope leaves (a range, as the envelope depends on
 * the id, which each client chooses).
 */
export function checkBytesText(text: unknown, size: number): void {
  if (typeof text !== 'string') throw new Error(`bytes: expected a text result, got ${typeof text}`);
  let expected = expectedTexts.get(size);
  if (expected === undefined) {
    expected = PAYLOAD_UNIT.repeat(Math.ceil(size / PAYLOAD_UNIT.length)).slice(0, size);
    expectedTexts.set(size, expected);
  }
  const longest = size - bytesEnvelope(0, false);
  const shortest = size - bytesEnvelope('x'.repeat(40), true);
  if (text.length < shortest || text.length > longest) {
    throw new Error(`bytes: text of ${text.length} characters for a ${size}-byte answer`);
  }
  if (text !== expected.slice(0, text.length)) throw new Error('bytes: the text differs from the payload');
}

/** The text of a tools/call result's first content block; throws on anything else. */
export function textOf(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  const first = Array.isArray(content) ? (content[0] as { type?: unknown; text?: unknown }) : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string') {
    throw new Error(`not a text result: ${JSON.stringify(result)?.slice(0, 200)}`);
  }
  if ((result as { isError?: unknown }).isError === true) throw new Error(`tool error: ${first.text}`);
  return first.text;
}

// ---- the clients -------------------------------------------------------------------------------

export type ClientId = 'raw' | 'conduit' | 'conduit-legacy' | 'sdk1' | 'sdk2' | 'sdk2-auto' | 'sdk2-auto-3s';

export interface ConnectOptions {
  /** conduit-mcp: stop after the first failure instead of restarting (the write-queue test). */
  readonly noReconnect?: boolean;
}

/** One connected client. */
export interface BenchConnection {
  /** The server process (for 2.x auto, the session process, not the probe's sibling). */
  readonly pid: number | undefined;
  /** tools/call; resolves with the first text block. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  /** The library's own close. */
  close(): Promise<void>;
  /** Why the client closed on its own, if it did (conduit-mcp's close reason; 'closed' for the SDKs). */
  readonly closedBecause: string | undefined;
}

export interface ClientKind {
  readonly id: ClientId;
  /** Loads the library (connect() does it too; the timed scenarios load it first). */
  load(): Promise<unknown>;
  readonly label: string;
  /** The protocol mode, as the reader of the table needs to know it. */
  readonly mode: string;
  connect(spec: ServerSpec, options?: ConnectOptions): Promise<BenchConnection>;
}

function packageVersion(name: string): string {
  try {
    const file = path.join(root, 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export const SDK1_VERSION = packageVersion('@modelcontextprotocol/sdk');
export const SDK2_VERSION = packageVersion('@modelcontextprotocol/client');
const CLIENT_INFO = { name: 'conduit-bench', version: '1.0.0' };

/** The raw baseline: spawn, write lines, read lines; no library, no timeouts, no validation. */
class RawConnection implements BenchConnection {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #pending = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;
  #held: Buffer[] = [];
  closedBecause: string | undefined;

  constructor(spec: ServerSpec) {
    this.child = spawn(process.execPath, serverArgs(spec), {
      env: minimalEnvironment(),
      stdio: ['pipe', 'pipe', 'inherit'],
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
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
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

const raw: ClientKind = {
  id: 'raw',
  label: 'raw pipe',
  mode: 'knows the era',
  load: async () => undefined,
  async connect(spec) {
    const connection = new RawConnection(spec);
    await new Promise<void>((resolve, reject) => {
      connection.child.once('spawn', resolve);
      connection.child.once('error', reject);
    });
    if (spec.mode === 'modern') {
      await connection.request('server/discover', {
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      });
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
};

function conduit(id: ClientId, label: string, protocol: ProtocolMode): ClientKind {
  return {
    id,
    label,
    mode: protocol,
    load: loadConduit,
    async connect(spec, options = {}) {
      const clientOptions: ClientOptions = {
        name: 'bench',
        clientInfo: CLIENT_INFO,
        protocol,
        transport: { type: 'stdio', command: process.execPath, args: serverArgs(spec) },
        ...(options.noReconnect ? { reconnect: { maxReconnects: 0 } } : {}),
      };
      const { Client } = await loadConduit();
      const client = new Client(clientOptions);
      let closedBecause: string | undefined;
      client.on('disconnected', (reason) => {
        closedBecause ??= reason.type;
      });
      await client.connect();
      return {
        pid: client.pid,
        get closedBecause() {
          return closedBecause;
        },
        async call(name, args) {
          return textOf(await client.callTool({ name, arguments: args }));
        },
        close: () => client.close(),
      };
    },
  };
}

/** What both official clients (1.x and 2.x) have in common, as far as the bench uses them. */
interface OfficialClient {
  onclose?: (() => void) | undefined;
  connect(transport: never): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects an official client over its stdio transport and wraps it as a BenchConnection. */
async function connectOfficial(
  client: OfficialClient,
  transport: { pid: number | null },
): Promise<BenchConnection> {
  let closedBecause: string | undefined;
  client.onclose = () => {
    closedBecause ??= 'closed';
  };
  await client.connect(transport as never);
  return {
    pid: transport.pid ?? undefined,
    get closedBecause() {
      return closedBecause;
    },
    async call(name, args) {
      return textOf(await client.callTool({ name, arguments: args }));
    },
    close: () => client.close(),
  };
}

const sdk1: ClientKind = {
  id: 'sdk1',
  label: `official 1.x (sdk ${SDK1_VERSION})`,
  mode: 'legacy',
  load: loadSdk1,
  async connect(spec) {
    const { Client, StdioClientTransport } = await loadSdk1();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(spec),
      stderr: 'inherit',
    });
    return connectOfficial(new Client(CLIENT_INFO), transport);
  },
};

function sdk2(id: ClientId, label: string, mode: 'legacy' | 'auto', probeTimeoutMs?: number): ClientKind {
  return {
    id,
    label,
    mode: probeTimeoutMs === undefined ? mode : `${mode}, probe ${probeTimeoutMs} ms`,
    load: loadSdk2,
    async connect(spec) {
      const { Client, StdioClientTransport } = await loadSdk2();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: serverArgs(spec),
        stderr: 'inherit',
      });
      const client = new Client(
        CLIENT_INFO,
        mode === 'auto'
          ? {
              versionNegotiation: {
                mode: 'auto',
                ...(probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: probeTimeoutMs } }),
              },
            }
          : {},
      );
      return connectOfficial(client, transport);
    },
  };
}

export const CLIENTS: Record<ClientId, ClientKind> = {
  raw,
  conduit: conduit('conduit', 'conduit-mcp', 'auto'),
  'conduit-legacy': conduit('conduit-legacy', 'conduit-mcp', 'legacy'),
  sdk1,
  sdk2: sdk2('sdk2', `official 2.x (client ${SDK2_VERSION})`, 'legacy'),
  'sdk2-auto': sdk2('sdk2-auto', `official 2.x (client ${SDK2_VERSION})`, 'auto'),
  'sdk2-auto-3s': sdk2('sdk2-auto-3s', `official 2.x (client ${SDK2_VERSION})`, 'auto', 3000),
};

// ---- processes ---------------------------------------------------------------------------------

/** True once the process has exited (gone, or a zombie waiting to be reaped). */
export function processGone(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return true;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** Polls every millisecond until the process is gone; false if `timeoutMs` passes first. */
export async function waitGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!processGone(pid)) {
    if (performance.now() > deadline) return false;
    await sleep(1);
  }
  return true;
}

/**
 * Polls until the process is reaped: its /proc entry is gone, which happens only once every thread
 * of it has finished and its parent has collected it. Between samples, so that one server's teardown
 * never overlaps the next sample. False if `timeoutMs` passes first.
 */
export async function waitReaped(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (existsSync(`/proc/${pid}`)) {
    if (performance.now() > deadline) return false;
    await sleep(1);
  }
  return true;
}

/** A field of /proc/<pid>/status in KiB (VmHWM: peak resident set; VmRSS: current). */
export function statusKiB(field: 'VmHWM' | 'VmRSS', pid: number | 'self' = 'self'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Bench servers started by this process that still run (a 2.x probe sibling, a failed sample). */
export function strayServers(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || fields[0] === 'Z') continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (cmdline.includes(SERVER_SCRIPT)) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** SIGKILLs the bench servers this process started and left running; returns how many. */
export async function killStrayServers(): Promise<number> {
  const pids = strayServers();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const pid of pids) await waitGone(pid, 2000);
  return pids.length;
}
