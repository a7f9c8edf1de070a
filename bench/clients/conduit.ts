// conduit-mcp: `Client` from src/index.ts (or a build of it), in the protocol mode given.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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

// BENCH_CONDUIT_DIST=1: the built dist/ instead of src/ through tsx (profiles then show real lines).
const loadConduit = once(
  (): Promise<Library> =>
    process.env.BENCH_CONDUIT_DIST === '1'
      ? import('../../dist/index.js' as string)
      : import('../../src/index.js'),
);

// BENCH_CONDUIT_BASELINE=<dir>: another build of the library (the dir holding its index.js), as the
// client `conduit-baseline`, for a before/after comparison in one process, samples alternating.
const loadBaseline = once((): Promise<Library> => {
  const directory = process.env.BENCH_CONDUIT_BASELINE;
  if (!directory) throw new Error('conduit-baseline needs BENCH_CONDUIT_BASELINE=<dir of a built index.js>');
  return import(pathToFileURL(path.resolve(directory, 'index.js')).href);
});

type ConduitClient = InstanceType<Library['Client']>;

/** Connects a conduit-mcp Client and wraps it as a BenchConnection (`pid`: the server's process). */
export async function connectConduit(
  client: ConduitClient,
  pid: () => number | undefined,
): Promise<BenchConnection> {
  let closedBecause: string | undefined;
  client.on('disconnected', (reason) => {
    closedBecause ??= reason.type;
  });
  await client.connect();
  return {
    get pid() {
      return pid();
    },
    get closedBecause() {
      return closedBecause;
    },
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
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
