// conduit-mcp: `Client` from the built dist/ (or src/, or another build), in the protocol mode given.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ClientOptions, ProtocolMode } from '../../src/index.js';
import {
  type BenchConnection,
  CLIENT_INFO,
  type ClientId,
  type ClientKind,
  once,
  serverArgs,
  textOf,
} from './types.js';

type Library = typeof import('../../src/index.js');

// conduit-mcp runs from the built dist/, as its users run it (rebuilt first when a file under src/
// is newer): tsx's keepNames wrappers cost memory and CPU no user pays. BENCH_CONDUIT_SRC=1: src/
// through tsx instead.
export const loadConduit = once((): Promise<Library> => {
  if (process.env.BENCH_CONDUIT_SRC === '1') return import('../../src/index.js');
  buildIfStale();
  return import('../../dist/index.js' as string);
});

const root = fileURLToPath(new URL('../../', import.meta.url));

function newestMtime(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function buildIfStale(): void {
  const built = path.join(root, 'dist', 'index.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(path.join(root, 'src'))) return;
  console.error('bench: building dist/ (src/ is newer)');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
}

// BENCH_CONDUIT_BASELINE=<dir>: another build of the library (the dir holding its index.js), as the
// client `conduit-baseline`, for a before/after comparison in one process, samples alternating.
export const loadBaseline = once((): Promise<Library> => {
  const directory = process.env.BENCH_CONDUIT_BASELINE;
  if (!directory) throw new Error('conduit-baseline needs BENCH_CONDUIT_BASELINE=<dir of a built index.js>');
  return import(pathToFileURL(path.resolve(directory, 'index.js')).href);
});

type ConduitClient = InstanceType<Library['Client']>;

/** A connected conduit-mcp Client as a BenchConnection (`pid`: the server's process). */
class ConduitConnection implements BenchConnection {
  closedBecause: string | undefined;
  readonly #client: ConduitClient;
  readonly #pid: () => number | undefined;

  constructor(client: ConduitClient, pid: () => number | undefined) {
    this.#client = client;
    this.#pid = pid;
    client.on('disconnected', (reason) => {
      this.closedBecause ??= reason.type;
    });
  }

  get pid(): number | undefined {
    return this.#pid();
  }

  async call(name: string, args: Record<string, unknown>): Promise<string> {
    return textOf(await this.#client.callTool({ name, arguments: args }));
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

/** Connects a conduit-mcp Client and wraps it as a BenchConnection. */
export async function connectConduit(
  client: ConduitClient,
  pid: () => number | undefined,
): Promise<BenchConnection> {
  const connection = new ConduitConnection(client, pid);
  await client.connect();
  return connection;
}

export function conduit(id: ClientId, label: string, protocol: ProtocolMode, baseline = false): ClientKind {
  const load = baseline ? loadBaseline : loadConduit;
  return {
    id,
    label,
    mode: protocol,
    load,
    async connect(spec, options = {}) {
      const clientOptions: ClientOptions = {
        name: 'bench',
        clientInfo: CLIENT_INFO,
        protocol,
        transport: { type: 'stdio', command: process.execPath, args: serverArgs(spec) },
        ...(options.noReconnect ? { reconnect: { maxReconnects: 0 } } : {}),
      };
      const { Client } = await load();
      const client = new Client(clientOptions);
      return connectConduit(client, () => client.pid);
    },
  };
}
