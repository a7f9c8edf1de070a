// 100 servers from one client process (10 with --quick): each client in a fresh process of its own
// (bench/child.ts many), all connected at once; the time until all are ready, the client's RSS
// with all up, and its V8 heap + external memory per server.
import type { ManyResult } from '../child.js';
import type { ClientId } from '../clients/index.js';
import { errorText, perClient, rotate, runChild, type Scenario } from '../core/runner.js';
import { type Figures, summarise } from '../core/stats.js';
import { info, LEGACY_COLUMNS, type TargetCheck } from '../core/targets.js';

const noFailure: TargetCheck = (row) => ({
  target: 'no failure',
  met: row.cells.conduit !== undefined && row.cells.conduit.figures.invalid.length === 0,
});

export const many: Scenario = {
  group: 'many',
  async run(bench) {
    const ids = bench.pick(['raw', 'conduit', 'sdk1', 'sdk2']);
    const count = bench.size(100, 10);
    const runs = bench.quick ? 1 : 2;
    bench.log(`${count} servers from one client process: ${ids.join(', ')} (a process each) ...`);
    const ready = perClient<number>(ids);
    const runsOf = perClient<ManyResult>(ids);
    const invalid = perClient<string>(ids);
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
    const median = (values: number[]) => summarise(values).median;
    for (const id of ids) {
      const results = runsOf.get(id)!.filter((r) => r.failures === 0);
      readyFigures[id] = summarise(ready.get(id)!, invalid.get(id)!, {
        extra: {
          allGoneAfterCloseMs: Math.round(median(results.map((r) => r.allGoneMs))),
          serverMeanRssMiB: Math.round(median(results.map((r) => r.serverMeanKiB / 1024)) * 10) / 10,
        },
      });
      rssFigures[id] = summarise(
        results.map((r) => r.rssAfterKiB / 1024),
        [],
        { extra: { rssDeltaPerServerKiB: Math.round(median(results.map((r) => r.clientKiBPerServer))) } },
      );
      heapFigures[id] = summarise(results.map((r) => r.heapKiBPerServer));
    }
    const title = `${count} servers from one client process`;
    const result = (id: string, what: string, unit: string, figures: Partial<Record<ClientId, Figures>>) => ({
      id,
      title: `${title}: ${what}`,
      unit,
      better: 'lower' as const,
      figures,
      notes: [],
    });
    bench.record(result('many-ready', 'time to all ready', 'ms', readyFigures), {
      columns: LEGACY_COLUMNS,
      check: noFailure,
    });
    bench.record(result('many-rss', 'client RSS with all up', 'MiB', rssFigures), {
      columns: LEGACY_COLUMNS,
      check: info,
    });
    // The target: no more than the best official client per server.
    bench.record(result('many-heap', 'client heap per server', 'KiB', heapFigures), {
      columns: LEGACY_COLUMNS,
      check: (row) => ({ target: '<= 1x best official', met: row.vsOfficial <= 1 }),
    });
  },
};
