// `npm run bench`: conduit-mcp against the official SDKs (1.x and 2.x) and the raw pipe, side by
// side, in one process run, on one bench server (bench/server.mjs). Prints one table with absolute
// figures and ratios and writes the same as JSON to bench/results/bench-<timestamp>.json.
//
//   node --import tsx bench/run.ts [--runs N] [--only groups] [--clients ids] [--no-write]
//
// groups: throughput, modern, connect, close, flood, many, framing (default: all)
// clients: raw, conduit, sdk1, sdk2 (limits the in-process groups, e.g. for a --cpu-prof run)
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { FloodResult, ManyResult } from './child.js';
import {
  type BenchConnection,
  CLIENTS,
  type ClientId,
  checkBytesText,
  killStrayServers,
  root,
  SDK1_VERSION,
  SDK2_VERSION,
  type ServerSpec,
  waitGone,
  waitReaped,
} from './clients.js';
import { type FramingBenchResult, type FramingCaseResult, runFramingBench } from './framing.js';
import {
  collectGarbage,
  type Figures,
  formatNumber,
  formatRatio,
  markdownTable,
  summarise,
} from './stats.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** conduit-mcp's defaults, which the targets refer to. */
const PROBE_TIMEOUT_MS = 3000;
const MAX_WRITE_QUEUE_BYTES = 16 * MiB;
/** How long the official 2.x client's default probe (60 s) is given on a silent server. */
const SILENT_CAP_MS = 10_000;

const GROUPS = ['throughput', 'modern', 'connect', 'close', 'flood', 'many', 'framing'] as const;
type Group = (typeof GROUPS)[number];

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Warnings this process printed (e.g. an SDK adding a 'drain' listener per queued write). */
const processWarnings = new Set<string>();
process.on('warning', (warning) => processWarnings.add(`${warning.name}: ${warning.message}`));

// ---- results -----------------------------------------------------------------------------------

interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly figures: Partial<Record<ClientId, Figures>>;
  readonly notes: string[];
}

const scenarios: ScenarioResult[] = [];

function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]!);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- throughput --------------------------------------------------------------------------------

interface Workload {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  /** Calls, or MiB, per sample. */
  readonly amount: number;
  run(connection: BenchConnection): Promise<void>;
}

async function echoOnce(connection: BenchConnection, i: number): Promise<void> {
  const text = `echo ${i}`;
  const got = await connection.call('echo', { text });
  if (got !== text) throw new Error(`wrong echo for call ${i}: ${JSON.stringify(got).slice(0, 80)}`);
}

const SEQUENTIAL_CALLS = 5000;
const PARALLEL_CALLS = 20_000;
const IN_FLIGHT = 256;

function bytesWorkload(size: number, calls: number): Workload {
  return {
    id: `bytes-${size / MiB}m`,
    title: `${size / MiB} MiB results (${calls} sequential calls)`,
    unit: 'MiB/s',
    amount: (size * calls) / MiB,
    async run(connection) {
      for (let i = 0; i < calls; i++) checkBytesText(await connection.call('bytes', { bytes: size }), size);
    },
  };
}

const WORKLOADS: Workload[] = [
  {
    id: 'sequential',
    title: `${SEQUENTIAL_CALLS.toLocaleString('en-US')} sequential tools/call echo`,
    unit: 'calls/s',
    amount: SEQUENTIAL_CALLS,
    async run(connection) {
      for (let i = 0; i < SEQUENTIAL_CALLS; i++) await echoOnce(connection, i);
    },
  },
  {
    id: 'in-flight',
    title: `${PARALLEL_CALLS.toLocaleString('en-US')} calls, ${IN_FLIGHT} in flight`,
    unit: 'calls/s',
    amount: PARALLEL_CALLS,
    async run(connection) {
      let next = 0;
      const worker = async () => {
        while (next < PARALLEL_CALLS) await echoOnce(connection, next++);
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    },
  },
  bytesWorkload(1 * MiB, 32),
  bytesWorkload(8 * MiB, 4),
];

interface Participant {
  readonly id: ClientId;
  connection?: BenchConnection;
  failure?: string;
}

/**
 * One sample: the rate (amount per second), this process's CPU time per unit (µs), and how busy
 * the server was (its CPU time / wall time, %: it must stay well under 100 to never be the bottleneck).
 */
async function timeSample(participant: Participant, workload: Workload) {
  const connection = participant.connection;
  if (!connection) throw new Error(participant.failure ?? 'not connected');
  collectGarbage?.();
  const serverBefore = connection.pid === undefined ? undefined : processCpuMs(connection.pid);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await workload.run(connection);
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const serverAfter = connection.pid === undefined ? undefined : processCpuMs(connection.pid);
  const serverBusy =
    serverBefore === undefined || serverAfter === undefined
      ? Number.NaN
      : ((serverAfter - serverBefore) / elapsedMs) * 100;
  return {
    rate: workload.amount / (elapsedMs / 1000),
    cpuPerUnit: (used.user + used.system) / workload.amount,
    serverBusy,
  };
}

/**
 * Every client of the group connects to its own server, then each workload runs: one warm-up sample
 * per client, then `runs` rounds in which every client takes one sample, in an order that rotates.
 */
async function throughput(
  ids: ClientId[],
  server: ServerSpec,
  suffix: string,
  runs: number,
  only?: Set<string>,
): Promise<void> {
  const participants: Participant[] = ids.map((id) => ({ id }));
  for (const participant of participants) {
    try {
      participant.connection = await CLIENTS[participant.id].connect(server);
    } catch (error) {
      participant.failure = `connect failed: ${errorText(error)}`;
    }
  }
  for (const workload of WORKLOADS) {
    if (only && !only.has(workload.id)) continue;
    log(`${workload.title}${suffix}: ${ids.join(', ')} ...`);
    const samples = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
    const cpu = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
    const busy = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
    const invalid = new Map<ClientId, string[]>(ids.map((id) => [id, []]));
    const take = async (participant: Participant, keep: boolean) => {
      try {
        const value = await timeSample(participant, workload);
        if (keep) {
          samples.get(participant.id)!.push(value.rate);
          cpu.get(participant.id)!.push(value.cpuPerUnit);
          if (Number.isFinite(value.serverBusy)) busy.get(participant.id)!.push(value.serverBusy);
        }
      } catch (error) {
        invalid.get(participant.id)!.push(errorText(error));
      }
    };
    for (const participant of participants) await take(participant, false);
    for (let round = 0; round < runs; round++) {
      for (const participant of rotate(participants, round)) await take(participant, true);
    }
    const figures: Partial<Record<ClientId, Figures>> = {};
    const per = workload.unit === 'calls/s' ? 'call' : 'MiB';
    for (const id of ids) {
      const cpuMedian = summarise(cpu.get(id)!).median;
      figures[id] = summarise(samples.get(id)!, invalid.get(id)!, {
        extra: {
          [`clientCpuUsPer${per === 'call' ? 'Call' : 'MiB'}`]: Math.round(cpuMedian * 10) / 10,
          serverBusyPercent: Math.round(summarise(busy.get(id)!).median),
        },
      });
    }
    scenarios.push({
      id: `${workload.id}${suffix ? '-modern' : ''}`,
      title: `${workload.title}${suffix}`,
      unit: workload.unit,
      better: 'higher',
      figures,
      notes: [],
    });
  }
  for (const participant of participants) {
    const pid = participant.connection?.pid;
    await participant.connection?.close().catch(() => {});
    if (pid !== undefined) await waitGone(pid);
  }
  await killStrayServers();
}

/** A process's user + system CPU time so far, in ms, from /proc/<pid>/stat (10 ms ticks). */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// ---- connect and close -------------------------------------------------------------------------

interface ConnectPlan {
  readonly id: string;
  readonly title: string;
  readonly server: ServerSpec;
  readonly clients: ClientId[];
  readonly warmup: number;
  readonly runs: number;
  /** Fewer runs for slow clients. */
  readonly runsFor?: Partial<Record<ClientId, number>>;
  /** Give up waiting after this long and report "> cap". */
  readonly capFor?: Partial<Record<ClientId, number>>;
}

/** Between spawn samples: the last server fully gone (every thread, reaped), then a short pause. */
async function settleAfter(pid: number | undefined): Promise<void> {
  if (pid !== undefined) await waitReaped(pid);
  await killStrayServers();
  await sleep(SETTLE_MS);
}

const SETTLE_MS = 30;

/** Spawn -> ready, in ms. The answer to one echo is checked (untimed); then the server is stopped. */
async function connectSample(id: ClientId, server: ServerSpec, capMs?: number) {
  const started = performance.now();
  const pending = CLIENTS[id].connect(server);
  pending.catch(() => {});
  const connection =
    capMs === undefined ? await pending : await Promise.race([pending, sleep(capMs).then(() => undefined)]);
  const ms = performance.now() - started;
  if (!connection) {
    // Capped: stop the probe's process; the client then falls back to initialize on a new one.
    await killStrayServers();
    const late = await Promise.race([pending.catch(() => undefined), sleep(15_000).then(() => undefined)]);
    await late?.close().catch(() => {});
    await settleAfter(late?.pid);
    return { ms, capped: true };
  }
  await echoOnce(connection, 0);
  const pid = connection.pid;
  await connection.close();
  await settleAfter(pid);
  return { ms, capped: false };
}

async function connectScenario(plan: ConnectPlan): Promise<void> {
  log(`${plan.title}: ${plan.clients.join(', ')} ...`);
  const samples = new Map<ClientId, number[]>(plan.clients.map((id) => [id, []]));
  const invalid = new Map<ClientId, string[]>(plan.clients.map((id) => [id, []]));
  const capped = new Set<ClientId>();
  const rounds = Math.max(plan.runs, ...Object.values(plan.runsFor ?? {}));
  for (let round = -plan.warmup; round < rounds; round++) {
    for (const id of rotate(plan.clients, Math.max(0, round))) {
      const runs = plan.runsFor?.[id] ?? plan.runs;
      if (round >= runs || (round < 0 && plan.capFor?.[id] !== undefined)) continue;
      try {
        const sample = await connectSample(id, plan.server, plan.capFor?.[id]);
        if (round < 0) continue;
        samples.get(id)!.push(sample.ms);
        if (sample.capped) capped.add(id);
      } catch (error) {
        invalid.get(id)!.push(errorText(error));
        await settleAfter(undefined);
      }
    }
  }
  const figures: Partial<Record<ClientId, Figures>> = {};
  for (const id of plan.clients) {
    figures[id] = summarise(samples.get(id)!, invalid.get(id)!, { capped: capped.has(id) });
  }
  scenarios.push({ id: plan.id, title: plan.title, unit: 'ms', better: 'lower', figures, notes: [] });
}

/** close() -> the server process is gone, for a server that exits on stdin EOF. */
async function closeScenario(ids: ClientId[], warmup: number, runs: number): Promise<void> {
  log(`close: ${ids.join(', ')} ...`);
  const samples = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
  const resolved = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
  const invalid = new Map<ClientId, string[]>(ids.map((id) => [id, []]));
  for (let round = -warmup; round < runs; round++) {
    for (const id of rotate(ids, Math.max(0, round))) {
      let pid: number | undefined;
      try {
        const connection = await CLIENTS[id].connect({ mode: 'legacy' });
        await echoOnce(connection, 0);
        pid = connection.pid;
        if (pid === undefined) throw new Error('no pid');
        // Let the server finish starting (its compiler threads) before it is asked to exit.
        await sleep(50);
        const started = performance.now();
        await connection.close();
        const closeResolved = performance.now() - started;
        if (!(await waitGone(pid))) throw new Error('the server was still running after 10 s');
        const ms = performance.now() - started;
        if (round >= 0) {
          samples.get(id)!.push(ms);
          resolved.get(id)!.push(closeResolved);
        }
      } catch (error) {
        invalid.get(id)!.push(errorText(error));
      }
      await settleAfter(pid);
    }
  }
  const figures: Partial<Record<ClientId, Figures>> = {};
  for (const id of ids) {
    const closeResolved = summarise(resolved.get(id)!);
    const all = samples.get(id)!;
    figures[id] = summarise(all, invalid.get(id)!, {
      extra: {
        closeResolvedMedianMs: Math.round(closeResolved.median * 100) / 100,
        fastestMs: Math.round(Math.min(...all) * 100) / 100,
        meanMs: Math.round((all.reduce((a, b) => a + b, 0) / (all.length || 1)) * 100) / 100,
      },
    });
  }
  scenarios.push({
    id: 'close',
    title: 'close, server honouring EOF (until the process is gone)',
    unit: 'ms',
    better: 'lower',
    figures,
    notes: [],
  });
  // The same samples by their mean: an exit takes about 4 or about 8 ms here, whoever closes the
  // server, so the median of each client lands on one mode or the other from run to run.
  const means: Partial<Record<ClientId, Figures>> = {};
  for (const id of ids) {
    const f = figures[id]!;
    const all = samples.get(id)!;
    means[id] = { ...f, median: all.reduce((a, b) => a + b, 0) / (all.length || 1), statistic: 'mean' };
  }
  scenarios.push({
    id: 'close-mean',
    title: 'close, server honouring EOF (until the process is gone), mean',
    unit: 'ms',
    better: 'lower',
    figures: means,
    notes: [],
  });
}

// ---- child-process scenarios -------------------------------------------------------------------

const CHILD_SCRIPT = path.join(root, 'bench/child.ts');

/** Runs bench/child.ts in a process of its own; resolves with its JSON line and its stderr. */
function runChild<T>(args: string[], timeoutMs = 120_000): Promise<{ result: T; stderr: string }> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD_SCRIPT, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ result: JSON.parse(line) as T, stderr });
      } catch {
        reject(
          new Error(`child ${args.join(' ')} failed (code ${code}, signal ${signal}): ${stderr.slice(-500)}`),
        );
      }
    });
  });
}

/** Distinct warning lines a child printed (e.g. MaxListenersExceededWarning from the SDKs). */
function warnings(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => /Warning/.test(line));
  return [...new Set(lines.map((line) => line.replace(/^\(node:\d+\) /, '')))];
}

async function floodScenario(ids: ClientId[], runs: number, mib: number): Promise<void> {
  log(`server that never reads stdin, ${mib} MiB sent: ${ids.join(', ')} (a process each) ...`);
  const growth = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
  const runsOf = new Map<ClientId, FloodResult[]>(ids.map((id) => [id, []]));
  const invalid = new Map<ClientId, string[]>(ids.map((id) => [id, []]));
  const notes: string[] = [];
  for (let round = 0; round < runs; round++) {
    for (const id of rotate(ids, round)) {
      try {
        const { result, stderr } = await runChild<FloodResult>(['flood', id, String(mib)]);
        growth.get(id)!.push((result.peakKiB - result.baselineKiB) / 1024);
        runsOf.get(id)!.push(result);
        for (const warning of warnings(stderr)) {
          const note = `${CLIENTS[id].label}: ${warning}`;
          if (!notes.includes(note)) notes.push(note);
        }
      } catch (error) {
        invalid.get(id)!.push(errorText(error));
      }
    }
  }
  const figures: Partial<Record<ClientId, Figures>> = {};
  for (const id of ids) {
    const results = runsOf.get(id)!;
    const peaks = summarise(results.map((r) => r.peakKiB / 1024));
    const baselines = summarise(results.map((r) => r.baselineKiB / 1024));
    figures[id] = summarise(growth.get(id)!, invalid.get(id)!, {
      extra: {
        peakMiB: Math.round(peaks.median * 10) / 10,
        baselineMiB: Math.round(baselines.median * 10) / 10,
        closedBecause: [...new Set(results.map((r) => r.closedBecause ?? 'still open'))].join(', '),
        settledCalls: [...new Set(results.map((r) => r.settled))].join(', '),
        heapUsedAtEndMiB: summarise(results.map((r) => r.memoryMiB.before.heapUsed)).median,
        heapUsedAfterGcMiB: summarise(results.map((r) => r.memoryMiB.afterGc.heapUsed)).median,
      },
    });
  }
  scenarios.push({
    id: `flood-${mib}`,
    title: `server never reads stdin, ${mib} MiB sent: client peak RSS growth`,
    unit: 'MiB',
    better: 'lower',
    figures,
    notes,
  });
}

async function manyScenario(ids: ClientId[], runs: number, count: number): Promise<void> {
  log(`${count} servers from one client process: ${ids.join(', ')} (a process each) ...`);
  const ready = new Map<ClientId, number[]>(ids.map((id) => [id, []]));
  const runsOf = new Map<ClientId, ManyResult[]>(ids.map((id) => [id, []]));
  const invalid = new Map<ClientId, string[]>(ids.map((id) => [id, []]));
  for (let round = 0; round < runs; round++) {
    for (const id of rotate(ids, round)) {
      try {
        const { result } = await runChild<ManyResult>(['many', id, String(count)], 300_000);
        runsOf.get(id)!.push(result);
        if (result.failures > 0) invalid.get(id)!.push(`${result.failures} failed: ${result.firstError}`);
        else ready.get(id)!.push(result.readyMs);
      } catch (error) {
        invalid.get(id)!.push(errorText(error));
      }
    }
  }
  const readyFigures: Partial<Record<ClientId, Figures>> = {};
  const rssFigures: Partial<Record<ClientId, Figures>> = {};
  const heapFigures: Partial<Record<ClientId, Figures>> = {};
  for (const id of ids) {
    const results = runsOf.get(id)!.filter((r) => r.failures === 0);
    const gone = summarise(results.map((r) => r.allGoneMs));
    const servers = summarise(results.map((r) => r.serverMeanKiB / 1024));
    readyFigures[id] = summarise(ready.get(id)!, invalid.get(id)!, {
      extra: {
        allGoneAfterCloseMs: Math.round(gone.median),
        serverMeanRssMiB: Math.round(servers.median * 10) / 10,
      },
    });
    rssFigures[id] = summarise(
      results.map((r) => r.rssAfterKiB / 1024),
      [],
      {
        extra: {
          rssDeltaPerServerKiB: Math.round(summarise(results.map((r) => r.clientKiBPerServer)).median),
        },
      },
    );
    heapFigures[id] = summarise(results.map((r) => r.heapKiBPerServer));
  }
  const title = `${count} servers from one client process`;
  scenarios.push({
    id: 'many-ready',
    title: `${title}: time to all ready`,
    unit: 'ms',
    better: 'lower',
    figures: readyFigures,
    notes: [],
  });
  scenarios.push({
    id: 'many-rss',
    title: `${title}: client RSS with all up`,
    unit: 'MiB',
    better: 'lower',
    figures: rssFigures,
    notes: [],
  });
  scenarios.push({
    id: 'many-heap',
    title: `${title}: client heap per server`,
    unit: 'KiB',
    better: 'lower',
    figures: heapFigures,
    notes: [],
  });
}

// ---- the table ---------------------------------------------------------------------------------

const COLUMNS = ['raw', 'conduit', 'sdk1', 'sdk2', 'sdk2auto'] as const;
type Column = (typeof COLUMNS)[number];
const COLUMN_HEADERS: Record<Column, string> = {
  raw: 'raw pipe',
  conduit: 'conduit-mcp',
  sdk1: `sdk ${SDK1_VERSION}`,
  sdk2: `client ${SDK2_VERSION}`,
  sdk2auto: `client ${SDK2_VERSION} auto`,
};
const OFFICIAL: readonly Column[] = ['sdk1', 'sdk2', 'sdk2auto'];

interface Verdict {
  readonly text: string;
  readonly met: boolean | null;
}

interface Row {
  readonly scenario: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly cells: Partial<Record<Column, { client: string; figures: Figures }>>;
  /** conduit-mcp / the best official client (time or rate, as the unit says). */
  readonly vsOfficial: number;
  /** conduit-mcp / the raw pipe. */
  readonly vsRaw: number;
  readonly target: string;
  readonly verdict: Verdict;
}

const rows: Row[] = [];

type TargetCheck = (row: Omit<Row, 'target' | 'verdict'>) => { target: string; met: boolean | null };

function addRow(
  scenarioId: string,
  columns: Partial<Record<Column, ClientId>>,
  check: TargetCheck,
  title?: string,
  /** Leave "ours / raw" empty (a ratio that means nothing, e.g. the raw pipe does not probe). */
  noRawRatio = false,
): void {
  const scenario = scenarios.find((s) => s.id === scenarioId);
  if (!scenario) return;
  const cells: Row['cells'] = {};
  for (const column of COLUMNS) {
    const client = columns[column];
    const figures = client && scenario.figures[client];
    if (client && figures) cells[column] = { client, figures };
  }
  const value = (column: Column) => {
    const cell = cells[column];
    return cell && cell.figures.samples.length > 0 ? cell.figures.median : Number.NaN;
  };
  const officials = OFFICIAL.map(value).filter((v) => Number.isFinite(v));
  const best =
    officials.length === 0
      ? Number.NaN
      : scenario.better === 'higher'
        ? Math.max(...officials)
        : Math.min(...officials);
  const partial = {
    scenario: scenarioId,
    title: title ?? scenario.title,
    unit: scenario.unit,
    better: scenario.better,
    cells,
    vsOfficial: value('conduit') / best,
    vsRaw: noRawRatio ? Number.NaN : value('conduit') / value('raw'),
  };
  const { target, met } = check(partial);
  rows.push({ ...partial, target, verdict: { text: met === null ? 'info' : met ? 'met' : 'MISSED', met } });
}

const atLeast =
  (official: number | null, raw: number | null): TargetCheck =>
  (row) => {
    const parts: string[] = [];
    let met = true;
    if (official !== null) {
      parts.push(`>= ${official}x best official`);
      met &&= row.vsOfficial >= official;
    }
    if (raw !== null) {
      parts.push(`>= ${raw}x raw`);
      met &&= row.vsRaw >= raw;
    }
    return { target: parts.join(', '), met };
  };

const atMostRaw =
  (factor: number): TargetCheck =>
  (row) => ({ target: `<= ${factor}x raw`, met: row.vsRaw <= factor });

const info: TargetCheck = () => ({ target: 'report', met: null });

function cellText(figures: Figures): string {
  if (figures.samples.length === 0) return figures.invalid.length ? 'failed' : 'n/a';
  const value = `${figures.capped ? '> ' : ''}${formatNumber(figures.median)}`;
  const spread = figures.samples.length > 1 ? ` ±${Math.round(figures.spreadPercent / 2)}%` : '';
  const bad = figures.invalid.length ? ` (${figures.invalid.length} bad)` : '';
  return `${value}${spread}${bad}`;
}

function buildRows(framing: FramingBenchResult | undefined): void {
  const legacy = { raw: 'raw', conduit: 'conduit', sdk1: 'sdk1', sdk2: 'sdk2' } as const;
  const modern = { conduit: 'conduit', sdk2auto: 'sdk2-auto' } as const;
  addRow('sequential', legacy, atLeast(1.3, 0.8));
  addRow('in-flight', legacy, atLeast(1.5, 0.8));
  addRow('bytes-1m', legacy, atLeast(null, 0.8));
  addRow('bytes-8m', legacy, atLeast(3, 0.8));
  addRow('sequential-modern', modern, info);
  addRow('in-flight-modern', modern, info);
  addRow('bytes-1m-modern', modern, info);
  addRow('bytes-8m-modern', modern, info);
  addRow(
    'connect-legacy',
    { raw: 'raw', conduit: 'conduit-legacy', sdk1: 'sdk1', sdk2: 'sdk2' },
    atMostRaw(1.1),
  );
  addRow('connect-modern', { raw: 'raw', conduit: 'conduit', sdk2auto: 'sdk2-auto' }, atMostRaw(1.1));
  addRow('connect-32601', { raw: 'raw', conduit: 'conduit', sdk2auto: 'sdk2-auto' }, atMostRaw(1.15));
  addRow(
    'connect-silent',
    { raw: 'raw', conduit: 'conduit', sdk2auto: 'sdk2-auto' },
    (row) => ({
      target: `<= probeTimeout + 250 ms (${PROBE_TIMEOUT_MS + 250})`,
      met: (row.cells.conduit?.figures.median ?? Number.NaN) <= PROBE_TIMEOUT_MS + 250,
    }),
    undefined,
    true,
  );
  addRow(
    'connect-silent',
    { conduit: 'conduit', sdk2auto: 'sdk2-auto-3s' },
    info,
    `connect, silent legacy server (auto), official 2.x given probe.timeoutMs ${PROBE_TIMEOUT_MS}`,
  );
  addRow('close', legacy, info, 'close, server honouring EOF (until the process is gone), median');
  addRow('close-mean', legacy, (row) => ({
    target: '<= 1.1x raw (on the means: the exit time is bimodal)',
    met: row.vsRaw <= 1.1,
  }));
  // Bounded near the cap: closed with write_queue_full, under 2.5x the cap, and no more for 4x the data.
  const bounded: TargetCheck = (row) => {
    const ours = row.cells.conduit?.figures;
    const other = scenarios.find((s) => s.id === (row.scenario === 'flood-64' ? 'flood-256' : 'flood-64'))
      ?.figures.conduit;
    const limit = (2.5 * MAX_WRITE_QUEUE_BYTES) / MiB;
    const ok = (f: Figures | undefined) =>
      f !== undefined &&
      f.samples.length > 0 &&
      f.invalid.length === 0 &&
      f.extra?.closedBecause === 'write_queue_full' &&
      f.max <= limit;
    return {
      target: `write_queue_full, growth <= ${limit} MiB (2.5x maxWriteQueueBytes) at 64 and 256 MiB`,
      met: ok(ours) && (other === undefined || ok(other)),
    };
  };
  addRow('flood-64', { conduit: 'conduit', sdk1: 'sdk1', sdk2: 'sdk2' }, bounded);
  addRow('flood-256', { conduit: 'conduit', sdk1: 'sdk1', sdk2: 'sdk2' }, bounded);
  const noFailure: TargetCheck = (row) => ({
    target: 'no failure',
    met: row.cells.conduit !== undefined && row.cells.conduit.figures.invalid.length === 0,
  });
  addRow('many-ready', legacy, noFailure);
  addRow('many-rss', legacy, info);
  addRow('many-heap', legacy, info);
  if (framing) addFramingRows(framing);
}

/** The framing bench's cases, folded into the same table: ours in conduit-mcp, ReadBuffer in sdk 1.x. */
function addFramingRows(framing: FramingBenchResult): void {
  const eight = framing.cases.find((c) => c.bytes === 8 * MiB + 1);
  const figuresOf = (c: FramingCaseResult, reader: 'ours' | 'official'): Figures => {
    const f = c[reader];
    const rates = f.timesMs.map((ms) => c.bytes / 1e6 / (ms / 1e3));
    return summarise(rates, [], f.timedOut ? { capped: false } : {});
  };
  for (const c of framing.cases) {
    const ours = figuresOf(c, 'ours');
    const official = figuresOf(c, 'official');
    const is8 = c.bytes === 8 * MiB + 1;
    const isSmall = c.messages > 1;
    const target = is8 ? 20 : isSmall ? 1 : null;
    const ratio = c.ratio;
    rows.push({
      scenario: `framing-${c.name}`,
      title: `framing: ${c.name}, ReadBuffer vs our Framer${c.official.timedOut ? ' (official stopped)' : ''}`,
      unit: 'MB/s',
      better: 'higher',
      cells: {
        conduit: { client: 'conduit', figures: ours },
        sdk1: {
          client: 'sdk1',
          figures: c.official.timedOut ? { ...official, capped: true, median: official.median } : official,
        },
      },
      vsOfficial: ratio,
      vsRaw: Number.NaN,
      target: target === null ? 'report' : `>= ${target}x official`,
      verdict:
        target === null
          ? { text: 'info', met: null }
          : { text: ratio >= target ? 'met' : 'MISSED', met: ratio >= target },
    });
  }
  if (eight) {
    // The same 8 MiB case without the per-line work both readers must do (decode, JSON.parse, validate).
    const single = (ms: number) => summarise([ms]);
    rows.push({
      scenario: 'framing-8-framing-only',
      title: 'framing: 1 message of 8 MiB, framing alone (fastest total - fastest parse)',
      unit: 'ms',
      better: 'lower',
      cells: {
        conduit: { client: 'conduit', figures: single(eight.framingMs.ours) },
        sdk1: { client: 'sdk1', figures: single(eight.framingMs.official) },
      },
      // Ours is often within the timer's noise (shown as 0): no ratio then.
      vsOfficial: eight.framingMs.ours > 0 ? eight.framingMs.ours / eight.framingMs.official : Number.NaN,
      vsRaw: Number.NaN,
      target: 'report',
      verdict: { text: 'info', met: null },
    });
  }
}

function tableLines(): string[] {
  const header = [
    'scenario',
    'unit',
    ...COLUMNS.map((c) => COLUMN_HEADERS[c]),
    'ours / best official',
    'ours / raw',
    'target',
    'verdict',
  ];
  const body = rows.map((row) => [
    row.title,
    row.unit,
    ...COLUMNS.map((column) => {
      const cell = row.cells[column];
      if (!cell) return '';
      // A capped official figure is an upper bound on its rate.
      if (row.scenario.startsWith('framing-') && column === 'sdk1' && cell.figures.capped) {
        return `< ${formatNumber(cell.figures.median)}`;
      }
      return cellText(cell.figures);
    }),
    (row.scenario.startsWith('framing-') && row.cells.sdk1?.figures.capped ? '> ' : '') +
      formatRatio(row.vsOfficial),
    formatRatio(row.vsRaw),
    row.target,
    row.verdict.text,
  ]);
  return markdownTable(header, body);
}

// ---- environment -------------------------------------------------------------------------------

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1]!.trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function uptime(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`;
  }
}

function nproc(): number {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return os.availableParallelism();
  }
}

// ---- main --------------------------------------------------------------------------------------

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    only: { type: 'string' },
    clients: { type: 'string' },
    workloads: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Math.max(1, Number(values.runs ?? 5));
const groups = new Set<Group>(
  (values.only?.split(',') ?? [...GROUPS]).map((name) => {
    if (!(GROUPS as readonly string[]).includes(name)) throw new Error(`--only: unknown group ${name}`);
    return name as Group;
  }),
);
const clientFilter = values.clients ? new Set(values.clients.split(',')) : undefined;
const pick = (ids: ClientId[]) =>
  clientFilter ? ids.filter((id) => clientFilter.has(id) || clientFilter.has(id.split('-')[0]!)) : ids;
const workloadFilter = values.workloads ? new Set(values.workloads.split(',')) : undefined;

const started = performance.now();
const environment = {
  node: process.version,
  v8: process.versions.v8,
  platform: `${os.type()} ${os.release()}`,
  arch: process.arch,
  cpu: cpuModel(),
  nproc: nproc(),
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  sdk1: SDK1_VERSION,
  sdk2: SDK2_VERSION,
  uptimeAtStart: uptime(),
  uptimeAtEnd: '',
  gcBetweenSamples: collectGarbage !== undefined,
};
log(`conduit-mcp bench: ${environment.cpu} x${environment.nproc}, Node ${environment.node}`);
log(environment.uptimeAtStart);

const legacyServer: ServerSpec = { mode: 'legacy' };
if (groups.has('throughput')) {
  await throughput(pick(['raw', 'conduit', 'sdk1', 'sdk2']), legacyServer, '', runs, workloadFilter);
}
if (groups.has('modern')) {
  await throughput(
    pick(['conduit', 'sdk2-auto']),
    { mode: 'modern' },
    ', modern server (auto)',
    Math.max(1, Math.ceil(runs / 2)),
    workloadFilter,
  );
}
if (groups.has('connect')) {
  // Spawning is the noisiest thing measured here: five times the samples.
  const connectRuns = runs * 5;
  await connectScenario({
    id: 'connect-legacy',
    title: 'connect, legacy server (spawn -> ready)',
    server: legacyServer,
    clients: pick(['raw', 'conduit-legacy', 'sdk1', 'sdk2']),
    warmup: 1,
    runs: connectRuns,
  });
  await connectScenario({
    id: 'connect-modern',
    title: 'connect, modern server (auto)',
    server: { mode: 'modern' },
    clients: pick(['raw', 'conduit', 'sdk2-auto']),
    warmup: 1,
    runs: connectRuns,
  });
  await connectScenario({
    id: 'connect-32601',
    title: 'connect, legacy server answering -32601 to the probe (auto)',
    server: legacyServer,
    clients: pick(['raw', 'conduit', 'sdk2-auto']),
    warmup: 1,
    runs: connectRuns,
  });
  await connectScenario({
    id: 'connect-silent',
    title: 'connect, legacy server silent on unknown methods (auto)',
    server: { mode: 'legacy-silent' },
    clients: pick(['raw', 'conduit', 'sdk2-auto', 'sdk2-auto-3s']),
    warmup: 0,
    runs: 3,
    runsFor: { 'sdk2-auto': 1 },
    capFor: { 'sdk2-auto': SILENT_CAP_MS },
  });
}
// A process's exit takes either about 4 or about 8 ms here, whoever closes it (bimodal: the kernel's
// teardown): twice the connect samples, so that the medians settle.
if (groups.has('close')) await closeScenario(pick(['raw', 'conduit', 'sdk1', 'sdk2']), 1, runs * 6);
if (groups.has('flood')) {
  await floodScenario(pick(['conduit', 'sdk1', 'sdk2']), 2, 64);
  await floodScenario(pick(['conduit', 'sdk1', 'sdk2']), 1, 256);
}
if (groups.has('many')) await manyScenario(pick(['raw', 'conduit', 'sdk1', 'sdk2']), 2, 100);

let framing: FramingBenchResult | undefined;
const framingLog: string[] = [];
if (groups.has('framing')) {
  log('framing (bench/framing.ts) ...');
  framing = await runFramingBench({
    runs,
    official64MiBRuns: 1,
    official64MiBTimeLimitMs: 20_000,
    write: false,
    log: (line) => {
      framingLog.push(line);
      if (line.startsWith('framing: ')) log(`  ${line}`);
    },
  });
}

environment.uptimeAtEnd = uptime();
const durationS = (performance.now() - started) / 1000;
buildRows(framing);
const table = tableLines();
const missed = rows.filter((row) => row.verdict.met === false);
const invalidNotes = scenarios.flatMap((s) =>
  Object.entries(s.figures).flatMap(([id, f]) =>
    (f?.invalid ?? []).map((why) => `${s.id} / ${id}: invalid sample: ${why}`),
  ),
);
const notes = [
  `Each cell: median (± half the range over the runs). Throughput: ${runs} runs after a warm-up; modern: ${Math.max(1, Math.ceil(runs / 2))}; connect: ${runs * 5}; close: ${runs * 6}; silent connect: 3 (official 2.x default: 1, capped at ${SILENT_CAP_MS / 1000} s); flood and 100 servers: 2, a process each.`,
  'conduit-mcp runs in its default mode (auto: server/discover probe, then legacy on -32601) except "connect, legacy server" (protocol: legacy). The official 2.x client runs in its default legacy mode, "auto" = versionNegotiation { mode: "auto" }.',
  'Every server: node bench/server.mjs with HOME LOGNAME PATH SHELL TERM USER only. Every echo and payload is checked; a wrong one invalidates the sample.',
  'flood: tools/call requests of 64 KiB, 16 per event-loop turn (64 MiB: 1,024; 256 MiB: 4,096), to a server that stops reading after initialize; cell = peak RSS (VmHWM) growth over the connected baseline, MiB; conduit-mcp with reconnect.maxReconnects = 0; 256 MiB: 1 run.',
  '100 servers: all connected at once from a fresh process; RSS = the client process with the 100 up (after GC); heap = (V8 heap + external) growth per server.',
  ...scenarios.flatMap((s) => {
    const cpu = Object.entries(s.figures)
      .map(([id, f]) => {
        const value = f?.extra?.clientCpuUsPerCall ?? f?.extra?.clientCpuUsPerMiB;
        return value === undefined ? undefined : `${id} ${value}`;
      })
      .filter((text) => text !== undefined);
    if (cpu.length === 0) return [];
    const per = s.unit === 'calls/s' ? 'call' : 'MiB';
    const busy = Object.entries(s.figures)
      .map(([id, f]) => `${id} ${f?.extra?.serverBusyPercent ?? 'n/a'}%`)
      .join(', ');
    return [
      `${s.id}: this process's CPU time per ${per}, µs (median): ${cpu.join(', ')}; server busy (CPU / wall): ${busy}`,
    ];
  }),
  ...scenarios
    .filter((s) => s.id === 'close')
    .map(
      (s) =>
        `close: fastest / mean / close() resolved (median), ms: ${Object.entries(s.figures)
          .map(
            ([id, f]) =>
              `${id} ${f?.extra?.fastestMs} / ${f?.extra?.meanMs} / ${f?.extra?.closeResolvedMedianMs}`,
          )
          .join(', ')} (a process exit takes about 4 or about 8 ms here, whoever closes it)`,
    ),
  ...scenarios.flatMap((s) => s.notes.map((note) => `${s.id}: ${note}`)),
  ...[...processWarnings].map((warning) => `printed by a client in this process: ${warning}`),
  ...invalidNotes,
];

const output = [
  '',
  `conduit-mcp bench, ${new Date().toISOString()}: ${environment.cpu} x${environment.nproc}, Node ${environment.node}, ${durationS.toFixed(0)} s`,
  `load at start: ${environment.uptimeAtStart}`,
  `load at end:   ${environment.uptimeAtEnd}`,
  '',
  ...table,
  '',
  ...notes.map((note) => `note: ${note}`),
  ...(missed.length
    ? [`MISSED: ${missed.map((row) => row.title).join('; ')}`]
    : ['every target with a verdict was met']),
];
console.log(output.join('\n'));

if (!values['no-write']) {
  const date = new Date().toISOString();
  const directory = path.join(root, 'bench/results');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `bench-${date.replace(/[:.]/g, '-')}.json`);
  const json = {
    benchmark:
      'conduit-mcp vs @modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client 2.x and the raw pipe',
    date,
    durationS,
    environment,
    settings: {
      runs,
      groups: [...groups],
      sequentialCalls: SEQUENTIAL_CALLS,
      parallelCalls: PARALLEL_CALLS,
      inFlight: IN_FLIGHT,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      maxWriteQueueBytes: MAX_WRITE_QUEUE_BYTES,
      silentCapMs: SILENT_CAP_MS,
    },
    table: { header: tableLines()[0], rows },
    tableText: table,
    notes,
    scenarios,
    framing: framing ? { ...framing, log: framingLog } : undefined,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}
// A capped 2.x probe or an SDK's pending timers must not hold the run open.
await killStrayServers();
process.exit(0);
