// `conduit-mcp serve`, the gateway: conduit-mcp's Client calling the bench server directly, against
// the same Client calling it through the gateway (dist/cli/main.js serve), over stdio and over HTTP
// (`--http 127.0.0.1:0`: the gateway prints `serving N server(s) at <url>` on stderr, read here).
//   sequential   small echo calls one at a time (the rate is 1 / latency)
//   in-flight    small echo calls, 32 in flight
//   rss-50       the gateway's RSS with 50 stdio bench servers behind it, all listed
// The legs: stdio to bench/server.mjs (answers from a template: the hop's cost laid bare); stdio to
// bench/sdk-server.mjs (an echo tool on the official server SDK, as most servers are built); the
// floor, bench/relay.mjs in place of the gateway (a process that copies bytes and parses nothing);
// HTTP (direct: bench/http-server.mjs; the gateway with --http in front of bench/server.mjs); and
// bench/http-relay.mjs in the gateway's place (a bare node:http bridge, each message parsed once).
// In the rows, the "raw pipe" column is the Client direct, the "conduit-mcp" column the same Client
// through the gateway (or the relay), and "ours / raw" is gateway / direct. Samples alternate
// between direct and gateway, unpinned (three processes take part in a gateway call).
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { connectConduit, loadConduit } from '../clients/conduit.js';
import { httpClient } from '../clients/http/index.js';
import {
  type BenchConnection,
  CLIENT_INFO,
  type ClientId,
  minimalEnvironment,
  root,
  SERVER_SCRIPT,
} from '../clients/index.js';
import { statusKiB, waitGone } from '../core/processes.js';
import { errorText, rotate, type Scenario } from '../core/runner.js';
import { summarise } from '../core/stats.js';
import { atLeast, info } from '../core/targets.js';
import { withHttpServer } from './http/server.js';
import { inFlight, sequential, type Workload } from './workloads.js';

const GATEWAY = path.join(root, 'dist/cli/main.js');
const SERVER = [SERVER_SCRIPT, '--mode', 'legacy'];
const SDK_SERVER = [path.join(root, 'bench/sdk-server.mjs')];
const RELAY = path.join(root, 'bench/relay.mjs');
const HTTP_RELAY = path.join(root, 'bench/http-relay.mjs');
const HTTP_GATEWAY = [GATEWAY, 'serve', '--protocol', 'legacy', '--http', '127.0.0.1:0', '--'];
/** Gateway latency at most 1.3x direct: its sequential rate at least 1 / 1.3 of direct's. */
const SEQUENTIAL_TARGET = Math.round((1 / 1.3) * 100) / 100;
const IN_FLIGHT_TARGET = 0.7;
const COLUMNS = { raw: 'raw', conduit: 'conduit' } as const;

type Library = Awaited<ReturnType<typeof loadConduit>>;

/** The Client over stdio to `args` (node runs them). */
async function stdioClient(library: Library, args: string[]): Promise<BenchConnection> {
  const client = new library.Client({
    name: 'bench',
    clientInfo: CLIENT_INFO,
    protocol: 'legacy',
    requestTimeout: 120_000,
    transport: { type: 'stdio', command: process.execPath, args },
  });
  return connectConduit(client, () => client.pid);
}

/**
 * An HTTP front (`front`: the gateway with --http, or the HTTP relay) in front of the stdio server
 * `args`, until `body` is done; its URL read from its stderr.
 */
async function withHttpFront<T>(
  front: string[],
  args: string[],
  body: (url: string) => Promise<T>,
): Promise<T> {
  const child: ChildProcess = spawn(process.execPath, [...front, process.execPath, ...args], {
    env: minimalEnvironment(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${front[0]} did not start in 20 s`)), 20_000);
      createInterface({ input: child.stderr! }).on('line', (line) => {
        const found = /serving \d+ server\(s\) at (\S+)/.exec(line)?.[1];
        if (found === undefined) return;
        clearTimeout(timer);
        resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`${front[0]} exited (${code})`)));
    });
    return await body(url);
  } finally {
    child.kill('SIGTERM');
    if (child.pid !== undefined && !(await waitGone(child.pid, 10_000))) child.kill('SIGKILL');
  }
}

/** One timed sample of `workload` on a fresh connection, after `warmUp` calls; its rate. */
async function sample(
  connect: () => Promise<BenchConnection>,
  workload: Workload,
  warmUp: number,
): Promise<number> {
  const connection = await connect();
  try {
    for (let i = 0; i < warmUp; i++) await connection.call('echo', { text: `echo ${i}` });
    const started = performance.now();
    await workload.run(connection);
    return workload.amount / ((performance.now() - started) / 1000);
  } finally {
    await connection.close();
  }
}

/** The gateway's RSS (MiB) with `count` stdio bench servers behind it, every one listed. */
async function gatewayRss(library: Library, count: number): Promise<number> {
  const config = path.join(tmpdir(), `conduit-bench-gateway-${process.pid}.json`);
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) servers[`s${i}`] = { command: process.execPath, args: SERVER };
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const client = new library.Client({
    name: 'bench',
    clientInfo: CLIENT_INFO,
    requestTimeout: 120_000,
    connectTimeout: 120_000,
    transport: { type: 'stdio', command: process.execPath, args: [GATEWAY, 'serve', '--config', config] },
  });
  try {
    await client.connect();
    const deadline = Date.now() + 120_000;
    while ((await client.listTools()).tools.length < count * 2) {
      if (Date.now() > deadline) throw new Error(`not all ${count} servers listed within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const kib = statusKiB('VmRSS', client.pid!);
    if (kib === undefined) throw new Error('no VmRSS for the gateway');
    return kib / 1024;
  } finally {
    await client.close();
  }
}

export const gateway: Scenario = {
  group: 'gateway',
  async run(bench) {
    const library = await loadConduit();
    // HTTP through the gateway runs at a tenth of stdio's rate: fewer calls keep the group under 3 minutes.
    const workloadsOf = (http: boolean) => [
      sequential(bench.size(http ? 300 : 1000, 100)),
      inFlight(bench.size(http ? 1500 : 3000, 300), 32),
    ];
    // The gateway is a long-lived process: a fresh one runs its path unoptimised for its first
    // thousands of calls (3x slower at 50). Both sides get the same warm-up before the timing.
    const warmUpOf = (http: boolean) => (http ? bench.size(500, 100) : bench.size(3000, 300));
    const rounds = bench.quick ? 1 : bench.runs;
    bench.log(`gateway: direct vs conduit-mcp serve, stdio and HTTP, ${rounds} round(s) ...`);
    const direct = (server: string[]) => () => stdioClient(library, server);
    const through = (front: string[], server: string[]) => () =>
      stdioClient(library, [...front, process.execPath, ...server]);
    // The gateway speaks to its server in the era the direct Client does: legacy.
    const gatewayFront = [GATEWAY, 'serve', '--protocol', 'legacy', '--'];
    const http = httpClient('conduit');
    const withHttpFronts = <T>(body: (gatewayUrl: string, relayUrl: string) => Promise<T>) =>
      withHttpFront(HTTP_GATEWAY, SERVER, (gatewayUrl) =>
        withHttpFront([HTTP_RELAY], SERVER, (relayUrl) => body(gatewayUrl, relayUrl)),
      );
    await withHttpServer((server) =>
      withHttpFronts(async (gatewayUrl, relayUrl) => {
        const legs = [
          {
            id: 'stdio',
            title: 'stdio',
            direct: direct(SERVER),
            gateway: through(gatewayFront, SERVER),
            about: 'bench/server.mjs',
          },
          {
            id: 'stdio-sdk',
            title: 'stdio, a server on the official SDK',
            direct: direct(SDK_SERVER),
            gateway: through(gatewayFront, SDK_SERVER),
            about: 'bench/sdk-server.mjs',
          },
          {
            id: 'stdio-sdk-floor',
            title: 'stdio, a server on the official SDK, a byte relay in its place (the floor)',
            direct: direct(SDK_SERVER),
            gateway: through([RELAY], SDK_SERVER),
            about: 'bench/sdk-server.mjs',
            reference: true,
          },
          {
            id: 'stdio-floor',
            title: 'stdio, a byte relay in its place (the floor)',
            direct: direct(SERVER),
            gateway: through([RELAY], SERVER),
            about: 'bench/server.mjs',
            reference: true,
          },
          {
            id: 'http',
            title: 'HTTP',
            direct: () => http.connect(server, 'legacy'),
            gateway: () => http.connect({ url: gatewayUrl, pid: server.pid }, 'legacy'),
            about: 'bench/http-server.mjs',
          },
          {
            id: 'http-bare',
            title: 'HTTP, a bare HTTP front in its place',
            direct: () => http.connect(server, 'legacy'),
            gateway: () => http.connect({ url: relayUrl, pid: server.pid }, 'legacy'),
            about: 'bench/http-server.mjs',
            reference: true,
          },
        ];
        for (const leg of legs) {
          const overHttp = leg.id.startsWith('http');
          for (const workload of workloadsOf(overHttp)) {
            const rates: Record<'raw' | 'conduit', number[]> = { raw: [], conduit: [] };
            const invalid: Record<'raw' | 'conduit', string[]> = { raw: [], conduit: [] };
            for (let round = 0; round < rounds; round++) {
              for (const side of rotate(['raw', 'conduit'] as const, round)) {
                try {
                  const connect = side === 'raw' ? leg.direct : leg.gateway;
                  rates[side].push(await sample(connect, workload, warmUpOf(overHttp)));
                } catch (error) {
                  invalid[side].push(errorText(error));
                }
              }
            }
            const sequentialRow = workload.id === 'sequential';
            const result = {
              id: `gateway-${workload.id}-${leg.id}`,
              title: `gateway, ${leg.title}: ${workload.title}`,
              unit: workload.unit,
              better: 'higher' as const,
              figures: {
                raw: summarise(rates.raw, invalid.raw),
                conduit: summarise(rates.conduit, invalid.conduit),
              } satisfies Partial<Record<ClientId, unknown>>,
              notes: [
                leg.reference
                  ? overHttp
                    ? 'raw column: the Client direct to bench/http-server.mjs; conduit-mcp column: the same Client through bench/http-relay.mjs (bench/server.mjs behind it), plain node:http that parses each message once to match answers to requests and checks nothing (what a bare bridge costs); ours / raw: front / direct.'
                    : `raw column: the Client direct to ${leg.about}; conduit-mcp column: the same Client through bench/relay.mjs, which copies bytes and parses nothing (no gateway can do better); ours / raw: relay / direct.`
                  : `raw column: the Client direct to ${leg.about}; conduit-mcp column: the same Client through conduit-mcp serve${overHttp ? ' --http' : ''} (${overHttp ? 'bench/server.mjs' : leg.about} behind it); ours / raw: gateway / direct.`,
              ],
            };
            bench.record(result, {
              columns: COLUMNS,
              check: leg.reference
                ? info
                : atLeast(null, sequentialRow ? SEQUENTIAL_TARGET : IN_FLIGHT_TARGET),
            });
          }
        }
      }),
    );
    const count = bench.size(50, 10);
    const rss: number[] = [];
    const rssInvalid: string[] = [];
    for (let round = 0; round < (bench.quick ? 1 : 2); round++) {
      try {
        rss.push(await gatewayRss(library, count));
      } catch (error) {
        rssInvalid.push(errorText(error));
      }
    }
    bench.record(
      {
        id: `gateway-rss-${count}`,
        title: `gateway RSS with ${count} stdio servers behind it, all listed (MiB)`,
        unit: 'MiB',
        better: 'lower',
        figures: { conduit: summarise(rss, rssInvalid) },
        notes: [],
      },
      { columns: COLUMNS, check: info, noRawRatio: true },
    );
  },
};
