// The framing benchmark (bench/framing/, issue 4) folded into the table: our Framer in the
// conduit-mcp column, the official ReadBuffer in the sdk 1.x one, in this process, without pipes.

import type { Scenario } from '../core/runner.js';
import { type Figures, summarise } from '../core/stats.js';
import { verdictOf } from '../core/targets.js';
import { type FramingBenchResult, type FramingCaseResult, runFramingBench } from '../framing/index.js';

const MiB = 1024 * 1024;

/** The framing bench's log lines, kept for the JSON. */
export const framingLog: string[] = [];
export let framingResult: FramingBenchResult | undefined;

function figuresOf(c: FramingCaseResult, reader: 'ours' | 'official'): Figures {
  const f = c[reader];
  return summarise(f.timesMs.map((ms) => c.bytes / 1e6 / (ms / 1e3)));
}

export const framing: Scenario = {
  group: 'framing',
  async run(bench) {
    bench.log('framing (bench/framing.ts) ...');
    const result = await runFramingBench({
      runs: bench.runs,
      official64MiBRuns: 1,
      official64MiBTimeLimitMs: bench.quick ? 2000 : 20_000,
      // --quick: one warm-up (it still checks the output), no 64 MiB case.
      ...(bench.quick ? { cases: ['small', '1', '8'] as const, warmups: 1 } : {}),
      write: false,
      log: (line) => {
        framingLog.push(line);
        if (line.startsWith('framing: ')) bench.log(`  ${line}`);
      },
    });
    framingResult = result;
    for (const c of result.cases) {
      const is8 = c.bytes === 8 * MiB + 1;
      const target = is8 ? 20 : c.messages > 1 ? 1 : null;
      const capped = c.official.timedOut === true;
      bench.addRow({
        scenario: `framing-${c.name}`,
        title: `framing: ${c.name}, ReadBuffer vs our Framer${capped ? ' (official stopped)' : ''}`,
        unit: 'MB/s',
        better: 'higher',
        cells: {
          conduit: { client: 'conduit', figures: figuresOf(c, 'ours') },
          sdk1: { client: 'sdk1', figures: { ...figuresOf(c, 'official'), ...(capped ? { capped } : {}) } },
        },
        vsOfficial: c.ratio,
        vsRaw: Number.NaN,
        target: target === null ? 'report' : `>= ${target}x official`,
        verdict: verdictOf(target === null ? null : c.ratio >= target),
        officialCapped: capped,
      });
      if (!is8) continue;
      // The same 8 MiB case without the per-line work both readers must do (decode, JSON.parse, validate).
      const single = (ms: number) => summarise([ms]);
      bench.addRow({
        scenario: 'framing-8-framing-only',
        title: 'framing: 1 message of 8 MiB, framing alone (fastest total - fastest parse)',
        unit: 'ms',
        better: 'lower',
        cells: {
          conduit: { client: 'conduit', figures: single(c.framingMs.ours) },
          sdk1: { client: 'sdk1', figures: single(c.framingMs.official) },
        },
        // Ours is often within the timer's noise (shown as 0): no ratio then.
        vsOfficial: c.framingMs.ours > 0 ? c.framingMs.ours / c.framingMs.official : Number.NaN,
        vsRaw: Number.NaN,
        target: 'report',
        verdict: verdictOf(null),
      });
    }
  },
};
