// Close: close() -> the server process is gone, for a server that exits on stdin EOF. A process's
// exit takes either about 4 or about 8 ms here, whoever closes it (the kernel's teardown), so the
// target is on the means, and there are six times the throughput samples.
import { setTimeout as sleep } from 'node:timers/promises';
import { CLIENTS, type ClientId } from '../clients/index.js';
import { waitGone } from '../core/processes.js';
import { errorText, perClient, rotate, type Scenario, settleAfter } from '../core/runner.js';
import { type Figures, summarise } from '../core/stats.js';
import { info, LEGACY_COLUMNS } from '../core/targets.js';
import { echoOnce } from './workloads.js';

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / (values.length || 1);

export const close: Scenario = {
  group: 'close',
  async run(bench) {
    const ids = bench.pick(['raw', 'conduit', 'sdk1', 'sdk2']);
    const warmup = bench.quick ? 0 : 1;
    const runs = bench.quick ? 1 : bench.runs * 6;
    bench.log(`close: ${ids.join(', ')} ...`);
    const samples = perClient<number>(ids);
    const resolved = perClient<number>(ids);
    const invalid = perClient<string>(ids);
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
          if (round >= 0) {
            samples.get(id)!.push(performance.now() - started);
            resolved.get(id)!.push(closeResolved);
          }
        } catch (error) {
          invalid.get(id)!.push(errorText(error));
        }
        await settleAfter(pid);
      }
    }
    const figures: Partial<Record<ClientId, Figures>> = {};
    const means: Partial<Record<ClientId, Figures>> = {};
    for (const id of ids) {
      const all = samples.get(id)!;
      figures[id] = summarise(all, invalid.get(id)!, {
        extra: {
          closeResolvedMedianMs: Math.round(summarise(resolved.get(id)!).median * 100) / 100,
          fastestMs: Math.round(Math.min(...all) * 100) / 100,
          meanMs: Math.round(mean(all) * 100) / 100,
        },
      });
      means[id] = { ...figures[id]!, median: mean(all), statistic: 'mean' };
    }
    const title = 'close, server honouring EOF (until the process is gone)';
    bench.record(
      { id: 'close', title, unit: 'ms', better: 'lower', figures, notes: [] },
      { columns: LEGACY_COLUMNS, check: info, title: `${title}, median` },
    );
    bench.record(
      { id: 'close-mean', title: `${title}, mean`, unit: 'ms', better: 'lower', figures: means, notes: [] },
      {
        columns: LEGACY_COLUMNS,
        check: (row) => ({
          target: '<= 1.1x raw (on the means: the exit time is bimodal)',
          met: row.vsRaw <= 1.1,
        }),
      },
    );
  },
};
