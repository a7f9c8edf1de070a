// Timing the readers: warm-up runs (the first one's output deep-compared with what was sent), then
// measured runs in rounds, the readers' order rotating; the official reader on 64 MiB in a worker
// thread stopped at a time limit (it is O(n^2)).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { collectGarbage, median } from '../core/stats.js';
import { ours, READERS, type ReaderName } from './readers.js';
import {
  BENCH_MAX_BYTES,
  CHUNK_BYTES,
  type FramingCaseName,
  type FramingCaseResult,
  type ReaderFigures,
} from './types.js';
import { textOf, type Workload } from './workloads.js';

/** A full GC before each run, so one run's garbage is not collected on the next one's clock. */
const collect = collectGarbage;

function timeOnce(reader: ReaderName, workload: Workload, full: boolean): number {
  collect?.();
  const start = performance.now();
  const delivered = READERS[reader](workload);
  const elapsed = performance.now() - start;
  workload.check(delivered, full); // not timed
  return elapsed;
}

/**
 * The official reader on `workload`, in a worker thread stopped after `limitMs`: its O(n^2) reading
 * of one 64 MiB message takes minutes. The worker gets the same bytes (shared, not copied per
 * chunk) and the same 64 KiB chunking, and reports the time and the text length it delivered.
 */
async function officialInWorker(
  workload: Workload,
  limitMs: number,
  expectedTextLength: number,
): Promise<{ ms: number; timedOut: boolean }> {
  const shared = new SharedArrayBuffer(workload.bytes);
  const view = new Uint8Array(shared);
  let at = 0;
  for (const chunk of workload.chunks) {
    view.set(chunk, at);
    at += chunk.length;
  }
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.readerUrl).then(({ ReadBuffer }) => {
      const bytes = Buffer.from(workerData.shared);
      const chunks = [];
      for (let at = 0; at < bytes.length; at += workerData.chunkBytes) chunks.push(bytes.subarray(at, at + workerData.chunkBytes));
      const started = performance.now();
      const buffer = new ReadBuffer({ maxBufferSize: workerData.maxBytes });
      const lengths = [];
      for (const chunk of chunks) {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) {
          lengths.push(message.result.content[0].text.length);
        }
      }
      parentPort.postMessage({ ms: performance.now() - started, lengths });
    });
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      readerUrl: import.meta.resolve('@modelcontextprotocol/sdk/shared/stdio.js'),
      shared,
      chunkBytes: CHUNK_BYTES,
      maxBytes: BENCH_MAX_BYTES,
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await new Promise<{ ms: number; lengths: number[] } | Error | 'timeout'>((resolve) => {
    worker.once('message', resolve);
    worker.once('error', resolve);
    timer = setTimeout(() => resolve('timeout'), limitMs);
  });
  clearTimeout(timer);
  await worker.terminate();
  if (outcome === 'timeout') return { ms: limitMs, timedOut: true };
  if (outcome instanceof Error) throw outcome;
  assert.deepEqual(outcome.lengths, [expectedTextLength], 'official reader (worker): delivered text');
  return { ms: outcome.ms, timedOut: false };
}

function figures(bytes: number, plan: Plan, timesMs: number[], timedOut = false): ReaderFigures {
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1e3);
  const medianMs = median(timesMs);
  const slowest = Math.max(...timesMs);
  const fastest = Math.min(...timesMs);
  return {
    warmupRuns: plan.warmup,
    runs: timesMs.length,
    timesMs: timesMs.map((ms) => Math.round(ms * 1000) / 1000),
    medianMs,
    fastestMs: fastest,
    medianMBps: mbps(medianMs),
    minMBps: mbps(slowest),
    maxMBps: mbps(fastest),
    spreadPercent: ((slowest - fastest) / medianMs) * 100,
    ...(plan.note ? { note: plan.note } : {}),
    ...(timedOut ? { timedOut: true } : {}),
  };
}

export interface Plan {
  readonly warmup: number;
  readonly runs: number;
  readonly note?: string;
  /** Run in a worker thread, stopped after this many ms (the official reader on 64 MiB only). */
  readonly timeLimitMs?: number;
}

/**
 * Warm-up runs (the first one's output deep-compared with what was sent), then measured runs in
 * rounds, the readers' order rotating each round so that none always runs right after another.
 */
export async function measure(
  workload: Workload,
  plans: Record<ReaderName, Plan>,
): Promise<FramingCaseResult> {
  const names = Object.keys(READERS) as ReaderName[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    ReaderName,
    number[]
  >;
  const timedOut = new Set<ReaderName>();
  let expectedTextLength: number | undefined;
  for (const name of names) {
    for (let i = 0; i < plans[name].warmup; i++) timeOnce(name, workload, i === 0);
  }
  const rounds = Math.max(...names.map((name) => plans[name].runs));
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      if (times[name].length >= plans[name].runs) continue;
      const limit = plans[name].timeLimitMs;
      if (limit !== undefined) {
        expectedTextLength ??= textOf(ours(workload)[0]).length;
        collect?.();
        const run = await officialInWorker(workload, limit, expectedTextLength);
        times[name].push(run.ms);
        if (run.timedOut) timedOut.add(name);
        continue;
      }
      // Without a warm-up, the first measured run is the deep-compared one (the check is not timed).
      times[name].push(timeOnce(name, workload, plans[name].warmup === 0 && round === 0));
    }
  }
  const f = Object.fromEntries(
    names.map((name) => [name, figures(workload.bytes, plans[name], times[name], timedOut.has(name))]),
  ) as Record<ReaderName, ReaderFigures>;
  const framingMs = {
    ours: Math.max(0, f.ours.fastestMs - f.oursParseOnly.fastestMs),
    official: Math.max(0, f.official.fastestMs - f.officialParseOnly.fastestMs),
  };
  return {
    name: workload.name,
    bytes: workload.bytes,
    messages: workload.messages,
    chunks: workload.chunks.length,
    ours: f.ours,
    official: f.official,
    ratio: f.ours.medianMBps / f.official.medianMBps,
    parseOnly: { ours: f.oursParseOnly, official: f.officialParseOnly },
    framingMs,
    framingRatio: framingMs.ours > 0 && framingMs.official > 0 ? framingMs.official / framingMs.ours : null,
  };
}

export function plansFor(
  name: FramingCaseName,
  runs: number,
  official64MiBRuns: number,
  notes: string[],
  official64MiBTimeLimitMs?: number,
  warmups = 2,
) {
  const all = (plan: Plan): Record<ReaderName, Plan> => ({
    ours: plan,
    official: plan,
    oursParseOnly: plan,
    officialParseOnly: plan,
  });
  const warmup = Math.max(1, warmups);
  if (name === 'small') return all({ warmup, runs });
  if (name === '1') return all({ warmup, runs: runs * 3 }); // short runs: more of them
  if (name === '8') return all({ warmup, runs });
  const limit = official64MiBTimeLimitMs;
  const note =
    `official reader capped at ${official64MiBRuns} run(s) without warm-up` +
    (limit === undefined ? '' : `, each stopped after ${limit / 1000} s (in a worker thread)`) +
    ': it is O(n^2) (it re-concatenates and rescans the whole buffer on every chunk)';
  notes.push(`64 MiB: ${note}.`);
  const plan = { warmup: 1, runs: Math.max(3, Math.ceil(runs / 2)) };
  return {
    ...all(plan),
    official: {
      warmup: 0,
      runs: official64MiBRuns,
      note,
      ...(limit === undefined ? {} : { timeLimitMs: limit }),
    },
  };
}
