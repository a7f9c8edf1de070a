// HTTP modern connect, phase by phase: the loop of `--only http-connect` (a new client per sample,
// one echo and a close after it, untimed; the order rotating each round; 20 warm-up rounds), with
// the phases read on undici's diagnostics channels. Clients: the raw floor, conduit-mcp from dist/,
// and with BENCH_CONDUIT_BASELINE=<dir of a built index.js> another build, for before/after.
//
//   node --import tsx bench/http-connect-probe.ts [--runs 150] [--hops] [--cpu] [--curve] [--clients raw,conduit]
//
// --clients: only these (of raw, conduit, baseline), e.g. conduit alone under --cpu-prof.
//
// --cpu: this process's CPU time per phase too (process.cpuUsage at each mark, a few µs each).
// --hops: instead of times, the promises made and the microtask jobs run in each phase (one sample
// each, after two warm-up ones), by V8's promise hooks.
// --curve: instead of phases, how the time to ready moves as the process warms up: the median of
// each client over windows of connects (0-50, 50-200, ... up to --runs, no warm-up), and its ratio
// to raw; what chose the warm-up of `--only http-connect`.
import diagnostics from 'node:diagnostics_channel';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { promiseHooks } from 'node:v8';
import { loadConduit } from './clients/conduit.js';
import { httpClient } from './clients/http/index.js';
import { HTTP_REQUEST_TIMEOUT_MS, type HttpBenchServer } from './clients/http/types.js';
import { type BenchConnection, CLIENT_INFO, textOf } from './clients/types.js';
import { rotate } from './core/runner.js';
import { withHttpServer } from './scenarios/http/server.js';
import { echoOnce } from './scenarios/workloads.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '150' },
    hops: { type: 'boolean', default: false },
    clients: { type: 'string' },
    cpu: { type: 'boolean', default: false },
    curve: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const WARMUP = 20;

type Library = Awaited<ReturnType<typeof loadConduit>>;
const libraries = new Map<string, Library>([['conduit', await loadConduit()]]);
const baseline = process.env.BENCH_CONDUIT_BASELINE;
if (baseline) {
  libraries.set('baseline', await import(pathToFileURL(path.resolve(baseline, 'index.js')).href));
}
const ids = ['raw', ...libraries.keys()].filter(
  (id) => !values.clients || values.clients.split(',').includes(id),
);

/** What the bench's conduit client does: a new Client, connected (construction is timed too). */
async function connect(id: string, server: HttpBenchServer): Promise<BenchConnection> {
  if (id === 'raw') return httpClient('raw').connect(server, 'modern');
  const client = new (libraries.get(id)!.Client)({
    name: 'bench',
    clientInfo: CLIENT_INFO,
    protocol: 'auto',
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    transport: { type: 'http', url: server.url },
  });
  await client.connect();
  return {
    pid: server.pid,
    closedBecause: undefined,
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

// The first time each undici event is seen in a sample; sampling stops when connect resolves.
// Each mark is the wall time (ms) and, under `cpu:<name>`, this process's CPU time (µs, user +
// system): a phase's CPU is what other load distorts least.
let marks: Record<string, number> | undefined;
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const mark = (name: string) => {
  if (marks && marks[name] === undefined) {
    marks[name] = performance.now();
    if (values.cpu) marks[`cpu:${name}`] = cpuNow();
  }
};
const EVENTS = {
  created: 'undici:request:create',
  sent: 'undici:client:sendHeaders',
  headers: 'undici:request:headers',
  body: 'undici:request:trailers',
} as const;
for (const [name, channel] of Object.entries(EVENTS)) {
  diagnostics.subscribe(channel, () => mark(name));
}

const PHASES = [
  ['connect() to request created', 'start', 'created'],
  ['created to headers sent', 'created', 'sent'],
  ['sent to response headers', 'sent', 'headers'],
  ['response body', 'headers', 'body'],
  ['body to ready', 'body', 'ready'],
  ['total', 'start', 'ready'],
] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function timePhases(server: HttpBenchServer): Promise<void> {
  const samples = new Map(ids.map((id) => [id, [] as Record<string, number>[]]));
  for (let round = -WARMUP; round < runs; round++) {
    for (const id of rotate(ids, Math.max(0, round))) {
      marks = {};
      mark('start');
      const connection = await connect(id, server);
      mark('ready');
      const sample = marks;
      marks = undefined;
      await echoOnce(connection, round);
      await connection.close();
      if (round >= 0) samples.get(id)!.push(sample);
    }
  }
  console.log(`modern connect phases, median µs of ${runs} samples each (load: ${loadAverage()})`);
  console.log(['phase', ...ids].join(' | '));
  for (const [label, from, to] of PHASES) {
    const cells = ids.map((id) => (median(samples.get(id)!.map((s) => s[to]! - s[from]!)) * 1000).toFixed(0));
    console.log([label, ...cells].join(' | '));
  }
  if (values.cpu) console.log('CPU of this process in each phase, median µs');
  for (const [label, from, to] of values.cpu ? PHASES : []) {
    const cells = ids.map((id) =>
      median(samples.get(id)!.map((s) => s[`cpu:${to}`]! - s[`cpu:${from}`]!)).toFixed(0),
    );
    console.log([label, ...cells].join(' | '));
  }
  const total = (id: string) => median(samples.get(id)!.map((s) => s.ready! - s.start!));
  if (ids[0] === 'raw')
    for (const id of ids.slice(1)) console.log(`${id} / raw: ${(total(id) / total('raw')).toFixed(2)}x`);
}

async function warmUpCurve(server: HttpBenchServer): Promise<void> {
  const edges = [0, 50, 200, 500, 1000, 2000, 4000, 8000, 16000].filter((edge) => edge < runs);
  edges.push(runs);
  const times = new Map(ids.map((id) => [id, [] as number[]]));
  for (let round = 0; round < runs; round++) {
    for (const id of rotate(ids, round)) {
      const started = performance.now();
      const connection = await connect(id, server);
      times.get(id)!.push((performance.now() - started) * 1000);
      await echoOnce(connection, round);
      await connection.close();
    }
  }
  console.log(`modern connect as the process warms up, median µs per window (load: ${loadAverage()})`);
  console.log(['connects', ...ids, ...ids.slice(1).map((id) => `${id} / raw`)].join(' | '));
  for (let i = 1; i < edges.length; i++) {
    const cells = ids.map((id) => median(times.get(id)!.slice(edges[i - 1], edges[i])));
    const ratios = ids[0] === 'raw' ? cells.slice(1).map((cell) => `${(cell / cells[0]!).toFixed(2)}x`) : [];
    console.log(
      [`${edges[i - 1]}-${edges[i]}`, ...cells.map((cell) => cell.toFixed(0)), ...ratios].join(' | '),
    );
  }
}

async function countHops(server: HttpBenchServer): Promise<void> {
  // Phases by the same events: before the request is created, up to its body, after it.
  let phase: 'off' | 'before request' | 'network' | 'after body' = 'off';
  const counts = new Map<string, number>();
  const bump = (what: string) => {
    if (phase !== 'off') counts.set(`${phase}: ${what}`, (counts.get(`${phase}: ${what}`) ?? 0) + 1);
  };
  const hooks = [promiseHooks.onInit(() => bump('promises')), promiseHooks.onBefore(() => bump('jobs'))];
  diagnostics.subscribe(EVENTS.created, () => {
    if (phase === 'before request') phase = 'network';
  });
  diagnostics.subscribe(EVENTS.body, () => {
    if (phase === 'network') phase = 'after body';
  });
  for (const id of ids) {
    for (let i = 0; i < 3; i++) {
      counts.clear();
      phase = 'before request';
      const connection = await connect(id, server);
      phase = 'off';
      await connection.close();
    }
    console.log(id, Object.fromEntries(counts));
  }
  for (const stop of hooks) stop();
}

function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

await withHttpServer((server) =>
  values.hops ? countHops(server) : values.curve ? warmUpCurve(server) : timePhases(server),
);
