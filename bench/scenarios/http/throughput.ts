// HTTP throughput, in each era, on one HTTP bench server: sequential tools/call, 256 in flight,
// 1 MiB results as JSON and as SSE; the same sampling as the stdio throughput (throughput.ts).
import { httpClient } from '../../clients/http/index.js';
import type { Bench, Scenario } from '../../core/runner.js';
import { HTTP_TARGETS, LEGACY_COLUMNS, MODERN_COLUMNS } from '../../core/targets.js';
import { runEra } from '../throughput.js';
import { bytes, inFlight, sequential, type Workload } from '../workloads.js';
import { withHttpServer } from './server.js';

const MiB = 1024 * 1024;

function httpWorkloads(bench: Bench): Workload[] {
  return [
    sequential(bench.size(1000, 100)),
    inFlight(bench.size(5000, 256), 256),
    bytes(MiB, bench.size(16, 1), 'json'),
    bytes(MiB, bench.size(16, 1), 'sse'),
  ];
}

export const httpThroughput: Scenario = {
  group: 'http',
  run: (bench) =>
    withHttpServer(async (server) => {
      for (const era of ['legacy', 'modern'] as const) {
        await runEra(bench, {
          clients: era === 'legacy' ? ['raw', 'conduit', 'sdk1', 'sdk2'] : ['raw', 'conduit', 'sdk2-auto'],
          server: { mode: era },
          connect: (id) => httpClient(id).connect(server, era),
          workloads: httpWorkloads,
          idSuffix: `-http-${era}`,
          titleSuffix: `, HTTP ${era}`,
          columns: era === 'legacy' ? LEGACY_COLUMNS : MODERN_COLUMNS,
          targets: HTTP_TARGETS,
        });
      }
    }),
};
