// `npm run bench`: conduit-mcp against the official SDKs (1.x and 2.x) and the raw pipe, side by
// side, in one process run, on one bench server (bench/server.mjs). Prints one table with absolute
// figures and ratios and writes the same as JSON to bench/results/bench-<timestamp>.json.
//
//   node --import tsx bench/run.ts [--quick] [--runs N] [--only groups] [--clients ids]
//                                  [--workloads ids] [--pin cpu|off] [--no-write]
//
// --quick: every scenario once, with small amounts (under a minute), as a check before committing.
// groups: throughput, modern, connect, close, flood, many, pool, framing, http, http-connect,
//         http-memory, tool-search, gateway (default: all)
// clients: raw, conduit, sdk1, sdk2 (limits every group, e.g. for a --cpu-prof run)
// workloads: sequential, in-flight, bytes-1m, bytes-8m (the throughput groups; HTTP: bytes-1m-json, -sse)
// --pin: the CPU each sequential sample runs its client and server on (default 0; `off`: unpinned,
//        the scheduler's choice, whose rates swing up to 10x on a small VM; see bench/core/pin.ts)
// --no-write: print the table only (no JSON, no report)
//
// A run without --quick, --clients or --workloads also writes the report: its groups' tables in
// BENCHMARKS.md and their charts in bench/charts/<group>.svg (the other groups keep theirs).
// From saved results, running nothing: node --import tsx bench/report/render.ts <result.json...>
//
// Layout: bench/core/ (runner, statistics, targets, report), bench/clients/ (one file a client),
// bench/scenarios/ (one file a scenario), bench/framing/ (the framing benchmark).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ClientId, root } from './clients/index.js';
import { environment, uptime } from './core/environment.js';
import { type PinSetting, parsePin } from './core/pin.js';
import { killStrayServers } from './core/processes.js';
import { notesFor, printReport, tableLines, writeResults } from './core/report.js';
import type { Bench, ScenarioResult } from './core/runner.js';
import { buildRow, type Row, type RowSpec } from './core/targets.js';
import { readRun } from './report/model.js';
import { writeReport } from './report/write.js';
import { framingLog, framingResult } from './scenarios/framing.js';
import { SCENARIOS } from './scenarios/index.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Warnings this process printed (e.g. an SDK adding a 'drain' listener per queued write, or an
 * abort listener per HTTP request), each kind once: Node's own printer would write one line per
 * listener added, thousands in an HTTP run, and that writing would be timed as the client's.
 */
const processWarnings = new Set<string>();
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  const kind = `${warning.name}: ${warning.message.replace(/\b\d+\b/g, 'N')}`;
  if (processWarnings.has(kind)) return;
  processWarnings.add(kind);
  process.stderr.write(`(warning) ${kind}\n`);
});

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  runs: { type: 'string' },
  only: { type: 'string' },
  clients: { type: 'string' },
  workloads: { type: 'string' },
  pin: { type: 'string' },
  'no-write': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
const { values } = parseOptions();
function parseOptions() {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message} (npm run bench -- --help lists the options)\n`);
    process.exit(2);
  }
}
if (values.help) {
  // The usage is this file's opening comment, so it is written once.
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const lines = source.split('\n');
  const usage = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('//')),
  );
  process.stdout.write(`${usage.map((line) => line.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}
const quick = values.quick;
const runs = Number(values.runs ?? (quick ? 1 : 5));
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`bench: --runs ${values.runs} is not a whole number of runs, 1 or more\n`);
  process.exit(2);
}
let pin: PinSetting;
try {
  pin = parsePin(values.pin);
} catch (error) {
  process.stderr.write(`bench: ${(error as Error).message}\n`);
  process.exit(2);
}
const known = new Set(SCENARIOS.map((s) => s.group));
const groups = new Set(values.only?.split(',') ?? known);
for (const group of groups) if (!known.has(group)) throw new Error(`--only: unknown group ${group}`);
const clientFilter = values.clients ? new Set(values.clients.split(',')) : undefined;

const results: ScenarioResult[] = [];
const rows: Row[] = [];
/** The group of each row (rows[i] was recorded by a scenario of rowGroups[i]), for the report. */
const rowGroups: string[] = [];
let currentGroup = '';
const bench: Bench = {
  runs,
  quick,
  pin,
  size: (full, small) => (quick ? small : full),
  pick: (ids: ClientId[]) =>
    clientFilter ? ids.filter((id) => clientFilter.has(id) || clientFilter.has(id.split('-')[0]!)) : ids,
  workloads: values.workloads ? new Set(values.workloads.split(',')) : undefined,
  log,
  record(result: ScenarioResult, ...specs: RowSpec[]) {
    results.push(result);
    for (const spec of specs) {
      rows.push(buildRow(result, spec, results));
      rowGroups.push(currentGroup);
    }
  },
  addRow: (row) => {
    rows.push(row);
    rowGroups.push(currentGroup);
  },
  results,
};

const started = performance.now();
const env = environment();
log(`conduit-mcp bench${quick ? ' (--quick)' : ''}: ${env.cpu} x${env.nproc}, Node ${env.node}`);
log(env.uptimeAtStart);
for (const scenario of SCENARIOS) {
  if (!groups.has(scenario.group)) continue;
  const since = performance.now();
  currentGroup = scenario.group;
  await scenario.run(bench);
  log(`  (${scenario.group}: ${((performance.now() - since) / 1000).toFixed(1)} s)`);
}
env.uptimeAtEnd = uptime();
const durationS = (performance.now() - started) / 1000;

const notes = notesFor(results, [
  quick
    ? 'Each cell: one sample (--quick: a check that every scenario runs, not a measurement).'
    : `Each cell: median (± half the range over the runs). Throughput: ${runs} runs after a warm-up, both eras; connect: ${runs * 5} (over HTTP: ${runs * 100}); close: ${runs * 6}; silent connect: 3 (official 2.x default: 1, capped at 10 s); flood and 100 servers: 2, a process each.`,
  'conduit-mcp runs in its default mode (auto: server/discover probe, then legacy on -32601) except "connect, legacy server" (protocol: legacy). The official 2.x client runs in its default legacy mode, "auto" = versionNegotiation { mode: "auto" }. The raw pipe knows the era; in the modern one it sends the full _meta envelope on every request.',
  'Every server: node bench/server.mjs with HOME LOGNAME PATH SHELL TERM USER only. Every echo and payload is checked; a wrong one invalidates the sample.',
  'flood: tools/call requests of 64 KiB, 16 per event-loop turn, to a server that stops reading after initialize; cell = peak RSS (VmHWM) growth over the connected baseline, MiB; conduit-mcp with reconnect.maxReconnects = 0.',
  'many servers: all connected at once from a fresh process; RSS = the client process with all up (after GC); heap = (V8 heap + external) growth per server.',
]);
notes.push(...[...processWarnings].map((warning) => `printed by a client in this process: ${warning}`));
printReport(rows, notes, env, durationS);

if (!values['no-write']) {
  const file = writeResults({
    benchmark:
      'conduit-mcp vs @modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client 2.x and the raw pipe',
    durationS,
    environment: env,
    settings: { quick, runs, groups: [...groups] },
    table: { header: tableLines(rows)[0], rows: rows.map((row, i) => ({ group: rowGroups[i], ...row })) },
    tableText: tableLines(rows),
    notes,
    scenarios: results,
    framing: framingResult ? { ...framingResult, log: framingLog } : undefined,
  });
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
  // One sample each, or a part of the clients or workloads, is not a figure for the report.
  const partial = quick
    ? '--quick'
    : clientFilter
      ? '--clients'
      : values.workloads
        ? '--workloads'
        : undefined;
  if (partial) console.log(`report not written (${partial}: not a full measurement of its groups)`);
  else {
    const written = writeReport([readRun(file)], root);
    console.log(
      `report written: ${path.relative(process.cwd(), written.document)}, bench/charts/{${written.groups.map((g) => g.group).join(',')}}.svg`,
    );
  }
}
// A capped 2.x probe or an SDK's pending timers must not hold the run open.
await killStrayServers();
process.exit(0);
