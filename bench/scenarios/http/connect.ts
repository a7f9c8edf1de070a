// HTTP connect: a new client (its own connection pool) to ready, on the running HTTP bench server.
// Modern: server/discover (auto); legacy: initialize and notifications/initialized. One echo is
// checked after each sample (untimed), then the client is closed.
import { type HttpBenchServer, type HttpEra, httpClient } from '../../clients/http/index.js';
import type { ClientId } from '../../clients/index.js';
import { pinNote, pinToCpu } from '../../core/pin.js';
import { type Bench, errorText, perClient, rotate, type Scenario } from '../../core/runner.js';
import { type Figures, summarise } from '../../core/stats.js';
import { HTTP_TARGETS, LEGACY_COLUMNS, MODERN_COLUMNS } from '../../core/targets.js';
import { echoOnce } from '../workloads.js';
import { withHttpServer } from './server.js';

/**
 * Rounds before the samples: a connect runs each function of its path once, so V8 optimises them
 * only after a few thousand connects, and a library's own path (used by connects only) later than
 * undici's (used by every request too). Sampled on the way, the figure says which code the compiler
 * reached first and moves with the sample count: modern, ours / raw over windows of one process
 * (`bench/http-connect-probe.ts --curve`, three runs) was 1.14x-1.21x for the first 50 connects,
 * 1.09x-1.21x at 200-1000, 1.07x-1.11x at 1000-2000 and 1.02x-1.08x from 2000 on. The samples are
 * taken past that point; BENCHMARKS.md keeps the whole curve, the first connects included.
 */
const CONNECT_WARMUP_ROUNDS = 3000;

async function connectEra(bench: Bench, server: HttpBenchServer, era: HttpEra): Promise<void> {
  const ids = bench.pick(
    era === 'legacy' ? ['raw', 'conduit', 'sdk1', 'sdk2'] : ['raw', 'conduit', 'sdk2-auto'],
  );
  const title = `connect over HTTP, ${era === 'legacy' ? 'legacy (initialize)' : 'modern (server/discover)'}`;
  bench.log(`${title}: ${ids.join(', ')} ...`);
  for (const id of ids) await httpClient(id).load();
  // A connect over loopback takes about a millisecond, so one GC pause or scheduler hiccup moves a
  // sample by 100% or more: many samples (about 2 ms each), or the median is noise.
  const runs = bench.quick ? 1 : bench.runs * 100;
  const warmup = bench.quick ? 1 : CONNECT_WARMUP_ROUNDS;
  const samples = perClient<number>(ids);
  const invalid = perClient<string>(ids);
  // A connect is a ping-pong with the server, as a sequential call is: pinned the same way for the
  // whole loop (every client alike), so no sample waits for the host to wake the other vCPU.
  const unpin = pinToCpu(bench.pin, [server.pid]);
  const pinned = unpin !== undefined;
  try {
    for (let round = -warmup; round < runs; round++) {
      for (const id of rotate(ids, Math.max(0, round))) {
        try {
          const started = performance.now();
          const connection = await httpClient(id).connect(server, era);
          const ms = performance.now() - started;
          await echoOnce(connection, round);
          await connection.close();
          if (round >= 0) samples.get(id)!.push(ms);
        } catch (error) {
          invalid.get(id)!.push(errorText(error));
        }
      }
    }
  } finally {
    unpin?.();
  }
  const figures: Partial<Record<ClientId, Figures>> = {};
  for (const id of ids) figures[id] = summarise(samples.get(id)!, invalid.get(id)!);
  bench.record(
    {
      id: `connect-http-${era}`,
      title,
      unit: 'ms',
      better: 'lower',
      figures,
      notes: pinNote(bench.pin, 'connect over HTTP: this process and the bench server', pinned),
    },
    { columns: era === 'legacy' ? LEGACY_COLUMNS : MODERN_COLUMNS, check: HTTP_TARGETS.connect! },
  );
}

export const httpConnect: Scenario = {
  group: 'http-connect',
  run: (bench) =>
    withHttpServer(async (server) => {
      await connectEra(bench, server, 'legacy');
      await connectEra(bench, server, 'modern');
    }),
};
