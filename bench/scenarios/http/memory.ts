// conduit-mcp's heap over a long run of HTTP calls (100,000; --quick 1,000), 256 in flight, in each
// era: V8 heap + external after a full GC, once after a warm-up of 20,000 calls (--quick 500) and
// once at the end. Flat means the difference stays under the target whatever the number of calls.
import { type HttpBenchServer, type HttpEra, httpClient } from '../../clients/http/index.js';
import type { ClientId } from '../../clients/index.js';
import { type Bench, errorText, type Scenario } from '../../core/runner.js';
import { collectGarbage, type Figures, summarise } from '../../core/stats.js';
import { HTTP_HEAP_LIMIT_MIB, heapFlat } from '../../core/targets.js';
import { inFlight } from '../workloads.js';
import { withHttpServer } from './server.js';

const MiB = 1024 * 1024;

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collectGarbage?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function heapEra(bench: Bench, server: HttpBenchServer, era: HttpEra): Promise<void> {
  const id: ClientId = 'conduit';
  if (bench.pick([id]).length === 0) return;
  const calls = bench.size(100_000, 1000);
  const title = `heap growth over ${calls.toLocaleString('en-US')} HTTP calls (256 in flight), ${era}`;
  bench.log(`${title} ...`);
  const invalid: string[] = [];
  const growth: number[] = [];
  const extra: Record<string, number> = {};
  try {
    const connection = await httpClient(id).connect(server, era);
    // The warm-up fills the pool (256 connections), compiles the hot path and fills the caches
    // (the heap settles only after some 20,000 calls; it stays within 0.4 MiB for 200,000 more).
    await inFlight(bench.size(20_000, 500), 256).run(connection);
    const before = await settledHeap();
    await inFlight(calls, 256).run(connection);
    const after = await settledHeap();
    growth.push((after - before) / MiB);
    extra.heapBeforeMiB = Math.round((before / MiB) * 10) / 10;
    extra.bytesPerCall = Math.round(((after - before) / calls) * 100) / 100;
    await connection.close();
  } catch (error) {
    invalid.push(errorText(error));
  }
  const figures: Partial<Record<ClientId, Figures>> = { [id]: summarise(growth, invalid, { extra }) };
  bench.record(
    { id: `heap-http-${era}`, title, unit: 'MiB', better: 'lower', figures, notes: [] },
    { columns: { conduit: id }, check: heapFlat(HTTP_HEAP_LIMIT_MIB), noRawRatio: true },
  );
}

export const httpMemory: Scenario = {
  group: 'http-memory',
  run: (bench) =>
    withHttpServer(async (server) => {
      await heapEra(bench, server, 'legacy');
      await heapEra(bench, server, 'modern');
    }),
};
