// What every bench client shares: the bench server's command line, the minimal environment every
// server starts with, the interface a client implements, and the checks of what a server answers.
// A new client is one file in bench/clients/ implementing ClientKind, listed in clients/index.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
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

// ---- the clients -------------------------------------------------------------------------------

export type ClientId =
  | 'raw'
  | 'raw-attached'
  | 'conduit'
  | 'conduit-legacy'
  | 'conduit-baseline'
  | 'sdk1'
  | 'sdk2'
  | 'sdk2-auto'
  | 'sdk2-auto-3s';

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

export const CLIENT_INFO = { name: 'conduit-bench', version: '1.0.0' };

/**
 * Loads a library on first use, so that a child process that runs one client holds only that one.
 * The promise is kept: a second import() of a loaded module still goes through the loader (with
 * tsx, a round trip to its hooks thread, about a millisecond), which would count in connect times.
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}

export function packageVersion(name: string): string {
  try {
    const file = path.join(root, 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

// ---- answers -----------------------------------------------------------------------------------

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
