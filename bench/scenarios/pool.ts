// ClientPool: 100 servers (20 with --quick) from one pool, each sample in a fresh process
// (bench/pool-child.ts), alternating with the raw floor, the order rotating each round:
//   raw        the same processes spawned with the same options, no library, all at once (the floor)
//   raw-capped the same, at most the pool's default concurrency between spawn and answer at once
//   raw-probe  raw-capped, each first sending the era probe (server/discover, -32601) as the pool does
//   pool       ClientPool at its default concurrency (the CPU count x 4)
//   pool-legacy the same with protocol: 'legacy' (no probe)
//   pool-all   ClientPool with concurrency = the server count
// Rows: time to all ready (pool / raw, the target), the same at full concurrency and against the
// capped floor (what the cap alone costs), against the capped floor that probes too and without the
// probe on both sides (what the probe costs), time until every tools list is fetched too, client
// heap per server, and close() until the last process is gone.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { root } from '../clients/index.js';
import { errorText, rotate, runChild, type Scenario, type ScenarioResult } from '../core/runner.js';
import { type Figures, formatNumber, summarise } from '../core/stats.js';
import { atMostRaw, info, POOL_TARGETS } from '../core/targets.js';
import type { PoolSample } from '../pool-child.js';

const SCRIPT = path.join(root, 'bench/pool-child.ts');
const MODES = ['raw', 'raw-capped', 'raw-probe', 'pool', 'pool-legacy', 'pool-all'] as const;
type Mode = (typeof MODES)[number];
const TARGET_MODES = ['raw', 'pool'] as const satisfies readonly Mode[];

export const pool: Scenario = {
  group: 'pool',
  async run(bench) {
    const count = bench.size(100, 20);
    const cap = availableParallelism() * 4;
    const rounds = bench.quick ? 1 : bench.runs;
    bench.log(
      `ClientPool, ${count} servers${bench.quick ? ' (--quick: 20 servers, one round)' : ''}: ${MODES.join(', ')}, a process each ...`,
    );
    const samples = new Map<Mode, PoolSample[]>(MODES.map((mode) => [mode, []]));
    const invalid = new Map<Mode, string[]>(MODES.map((mode) => [mode, []]));
    const argsOf: Record<Mode, string[]> = {
      raw: ['raw', String(count)],
      'raw-capped': ['raw', String(count), String(cap)],
      'raw-probe': ['raw', String(count), String(cap), 'probe'],
      pool: ['pool', String(count)],
      'pool-legacy': ['pool', String(count), 'default', 'legacy'],
      'pool-all': ['pool', String(count), String(count)],
    };
    // The target row's two modes get four times the rounds: one sample's time moves +-20% with the
    // servers' own start-up CPU (3.9-5.1 s for the same 100 servers), so 5 rounds cannot tell 1.04x
    // from 1.07x (40 alternating pairs gave a 90% interval of 0.99x-1.09x around 1.04x).
    const targetRounds = bench.quick ? 1 : rounds * 4;
    const pairedRatios: number[] = [];
    for (let round = 0; round < targetRounds; round++) {
      const readyIn: Partial<Record<Mode, number>> = {};
      for (const mode of round < rounds ? rotate(MODES, round) : rotate(TARGET_MODES, round)) {
        try {
          const { result } = await runChild<PoolSample>(argsOf[mode], 300_000, SCRIPT);
          if (result.failures > 0)
            invalid.get(mode)!.push(`${result.failures} not ready: ${result.firstError}`);
          else {
            samples.get(mode)!.push(result);
            readyIn[mode] = result.readyMs;
          }
        } catch (error) {
          invalid.get(mode)!.push(errorText(error));
        }
      }
      if (readyIn.raw !== undefined && readyIn.pool !== undefined)
        pairedRatios.push(readyIn.pool / readyIn.raw);
    }
    const figures = (mode: Mode, value: (sample: PoolSample) => number, cpu = false): Figures =>
      summarise(samples.get(mode)!.map(value), invalid.get(mode)!, {
        ...(cpu
          ? { extra: { clientCpuMs: Math.round(summarise(samples.get(mode)!.map((s) => s.cpuMs)).median) } }
          : {}),
      });
    const ready = (sample: PoolSample) => sample.readyMs;
    const medianOf = (
      mode: Mode,
      value: (sample: PoolSample) => number,
      format: (median: number) => number | string = Math.round,
    ) => {
      const values = samples.get(mode)!.map(value);
      return values.length ? format(summarise(values).median) : 'n/a';
    };
    const cpuOf = (mode: Mode) => medianOf(mode, (s) => s.cpuMs);
    const codeOf = (mode: Mode) => medianOf(mode, (s) => s.codeKiBPerServer, formatNumber);
    const title = `ClientPool, ${count} servers`;
    const result = (id: string, what: string, unit: string, raw: Figures | undefined, ours: Figures) =>
      ({
        id,
        title: `${title}: ${what}`,
        unit,
        better: 'lower',
        figures: { ...(raw ? { raw } : {}), conduit: ours },
        notes: [] as string[],
      }) satisfies ScenarioResult;
    const columns = { raw: 'raw', conduit: 'conduit' } as const;

    const main = result(
      'pool-ready',
      `time to all ready, default concurrency (${cap}) vs raw all at once`,
      'ms',
      figures('raw', ready, true),
      figures('pool', ready, true),
    );
    if (bench.quick) {
      main.notes.push(
        `--quick: ${count} servers, one round (a check that the scenario runs; the heap per server then carries the fixed costs over fewer servers).`,
      );
    }
    main.notes.push(
      `raw = ${count} x node bench/server.mjs --mode legacy spawned as the stdio transport spawns them (node looked up in PATH, the allowlisted environment, detached, stderr ignored), initialize + notifications/initialized, no library; the pool in its default protocol mode (server/discover probe, -32601, initialize). Each sample in a fresh process after a warm-up of 4 servers; ${targetRounds} round(s) of raw and pool (the first ${rounds} with every other mode too), the order rotating.`,
      `the median of the ${pairedRatios.length} paired ratios (pool / raw in the same round): ${pairedRatios.length ? `${formatNumber(summarise(pairedRatios).median)}x` : 'n/a'}.`,
      `this process's CPU time until all ready (median), ms: ${MODES.map((mode) => `${mode} ${cpuOf(mode)}`).join(', ')}.`,
      `the servers' CPU time by then (all their threads, median of the sums), ms: ${MODES.map((mode) => `${mode} ${medianOf(mode, (s) => s.serversCpuMs)}`).join(', ')}.`,
      `the pool fetches no tools list while servers boot (the ready ones are listed together when the last one has booted, the rest on their ready): the row pool-listed has the time until every list is fetched too.`,
    );
    bench.record(main, { columns, check: atMostRaw(POOL_TARGETS.readyVsRaw) });
    bench.record(
      result(
        'pool-ready-capped',
        `time to all ready, both at most ${cap} starting at once (what the cap costs)`,
        'ms',
        figures('raw-capped', ready),
        figures('pool', ready),
      ),
      { columns, check: info },
    );
    bench.record(
      result(
        'pool-ready-probe',
        `time to all ready, both at most ${cap} at once and both probing the era (the library's own cost)`,
        'ms',
        figures('raw-probe', ready),
        figures('pool', ready),
      ),
      { columns, check: info },
    );
    bench.record(
      result(
        'pool-ready-legacy',
        `time to all ready, both at most ${cap} at once, neither probing (pool with protocol: 'legacy')`,
        'ms',
        figures('raw-capped', ready),
        figures('pool-legacy', ready),
      ),
      { columns, check: info },
    );
    bench.record(
      result(
        'pool-ready-all',
        `time to all ready, concurrency ${count} vs raw all at once`,
        'ms',
        figures('raw', ready),
        figures('pool-all', ready),
      ),
      { columns, check: info },
    );
    bench.record(
      result(
        'pool-listed',
        `time to all ready and every tools list fetched (connect() then listTools(); raw: tools/list to every server once all are ready)`,
        'ms',
        figures('raw', (s) => s.listedMs),
        figures('pool', (s) => s.listedMs),
      ),
      { columns, check: info },
    );
    const heap = result(
      'pool-heap',
      'client heap per server (V8 heap + external growth, all up and listed, after GC)',
      'KiB',
      figures('raw', (s) => s.heapKiBPerServer),
      figures('pool', (s) => s.heapKiBPerServer),
    );
    heap.notes.push(
      `of which V8's code spaces (what the JIT compiled during the sample: it does not grow with the server count, and moves with when the compiler ran), KiB per server, median: raw ${codeOf('raw')}, pool ${codeOf('pool')}.`,
    );
    bench.record(heap, {
      columns,
      noRawRatio: true,
      check: (row) => ({
        target: `<= ${POOL_TARGETS.heapKiBPerServer} KiB (best official client)`,
        met: (row.cells.conduit?.figures.median ?? Number.NaN) <= POOL_TARGETS.heapKiBPerServer,
      }),
    });
    const close = result(
      'pool-close',
      'close() until the last process is gone (raw: stdin EOF to every server)',
      'ms',
      figures('raw', (s) => s.closeMs),
      figures('pool', (s) => s.closeMs),
    );
    bench.record(close, { columns, check: info });
    bench.log(
      `  pool ready ${formatNumber(main.figures.conduit.median)} ms, raw ${formatNumber(main.figures.raw!.median)} ms`,
    );
  },
};
