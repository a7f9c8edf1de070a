// A server that never reads stdin: tools/call requests of 64 KiB, 16 per event-loop turn, after
// initialize; each client in a process of its own (bench/child.ts flood), so that the peak RSS
// growth is the client's alone. conduit-mcp must close with write_queue_full, its growth bounded
// near maxWriteQueueBytes and no larger for 4x the data.

import type { FloodResult } from '../child.js';
import { CLIENTS, type ClientId } from '../clients/index.js';
import {
  type Bench,
  errorText,
  perClient,
  rotate,
  runChild,
  type Scenario,
  warnings,
} from '../core/runner.js';
import { type Figures, summarise } from '../core/stats.js';
import type { TargetCheck } from '../core/targets.js';

const MiB = 1024 * 1024;
/** conduit-mcp's default, which the target refers to. */
const MAX_WRITE_QUEUE_BYTES = 16 * MiB;

// Bounded near the cap: closed with write_queue_full, under 2.5x the cap, and no more for 4x the data.
const bounded: TargetCheck = (row, results) => {
  const other = results.find((r) => r.id !== row.scenario && r.id.startsWith('flood-'))?.figures.conduit;
  const limit = (2.5 * MAX_WRITE_QUEUE_BYTES) / MiB;
  const ok = (f: Figures | undefined) =>
    f !== undefined &&
    f.samples.length > 0 &&
    f.invalid.length === 0 &&
    f.extra?.closedBecause === 'write_queue_full' &&
    f.max <= limit;
  return {
    target: `write_queue_full, growth <= ${limit} MiB (2.5x maxWriteQueueBytes) at 64 and 256 MiB`,
    met: ok(row.cells.conduit?.figures) && (other === undefined || ok(other)),
  };
};

async function flood(bench: Bench, runs: number, mib: number): Promise<void> {
  const ids = bench.pick(['conduit', 'sdk1', 'sdk2']);
  bench.log(`server that never reads stdin, ${mib} MiB sent: ${ids.join(', ')} (a process each) ...`);
  const growth = perClient<number>(ids);
  const runsOf = perClient<FloodResult>(ids);
  const invalid = perClient<string>(ids);
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
    const median = (values: number[]) => summarise(values).median;
    figures[id] = summarise(growth.get(id)!, invalid.get(id)!, {
      extra: {
        peakMiB: Math.round(median(results.map((r) => r.peakKiB / 1024)) * 10) / 10,
        baselineMiB: Math.round(median(results.map((r) => r.baselineKiB / 1024)) * 10) / 10,
        closedBecause: [...new Set(results.map((r) => r.closedBecause ?? 'still open'))].join(', '),
        settledCalls: [...new Set(results.map((r) => r.settled))].join(', '),
        heapUsedAtEndMiB: median(results.map((r) => r.memoryMiB.before.heapUsed)),
        heapUsedAfterGcMiB: median(results.map((r) => r.memoryMiB.afterGc.heapUsed)),
      },
    });
  }
  bench.record(
    {
      id: `flood-${mib}`,
      title: `server never reads stdin, ${mib} MiB sent: client peak RSS growth`,
      unit: 'MiB',
      better: 'lower',
      figures,
      notes,
    },
    { columns: { conduit: 'conduit', sdk1: 'sdk1', sdk2: 'sdk2' }, check: bounded },
  );
}

export const floodScenario: Scenario = {
  group: 'flood',
  async run(bench) {
    await flood(bench, bench.quick ? 1 : 2, 64);
    // --quick: 64 MiB only (the target then checks that one size).
    if (!bench.quick) await flood(bench, 1, 256);
  },
};
