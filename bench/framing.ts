// Framing benchmark (issue 4): our Framer against the official SDK's ReadBuffer, same process,
// same 64 KiB chunks, bytes in -> parsed, validated JSON-RPC messages out.
//
//   node --import tsx bench/framing.ts [--runs N] [--official-64-runs N] [--official-64-limit S]
//                                      [--cases small,1,8,64] [--no-write]
//
// `runFramingBench()` is the entry point for bench/run.ts; run directly, this file prints the tables
// and writes bench/results/framing-<timestamp>.json.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { deserializeMessage, ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { parseMessage } from '../src/jsonrpc/classify.js';
import { Framer } from '../src/transport/stdio/framer.js';
import { collectGarbage } from './stats.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/** Node's pipe reads arrive in chunks of up to 64 KiB. */
const CHUNK_BYTES = 64 * KiB;
const SMALL_MESSAGES = 100_000;
const LARGE_SIZES = [1 * MiB, 8 * MiB, 64 * MiB] as const;
/** Both readers get the same raised cap, above the largest message. */
const BENCH_MAX_BYTES = 2 * LARGE_SIZES[LARGE_SIZES.length - 1]!;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface FramingBenchOptions {
  /** Measured runs per case and reader (the official reader's 64 MiB runs are capped apart). */
  readonly runs?: number;
  /** Measured runs of the official reader on the 64 MiB message (it is O(n^2)). @defaultValue 1 */
  readonly official64MiBRuns?: number;
  /**
   * Stop each official 64 MiB run after this many ms (it runs in a worker thread, which is
   * terminated) and report it as slower than that. @defaultValue no limit (two minutes and more)
   */
  readonly official64MiBTimeLimitMs?: number;
  /** Which cases to run, in order. @defaultValue ['small', '1', '8', '64'] */
  readonly cases?: readonly FramingCaseName[];
  /** Write bench/results/framing-<timestamp>.json. @defaultValue true */
  readonly write?: boolean;
  /** Where progress and the table go. @defaultValue console.log */
  readonly log?: (line: string) => void;
}

export interface ReaderFigures {
  readonly warmupRuns: number;
  readonly runs: number;
  /** Wall time of every measured run, in milliseconds. */
  readonly timesMs: number[];
  readonly medianMs: number;
  /** The fastest run, in milliseconds: the least disturbed by other work on the machine. */
  readonly fastestMs: number;
  /** Throughput at the median time, in MB/s (1 MB = 10^6 bytes). */
  readonly medianMBps: number;
  /** Throughput of the slowest and of the fastest run, in MB/s. */
  readonly minMBps: number;
  readonly maxMBps: number;
  /** (slowest - fastest) / median time, in percent. */
  readonly spreadPercent: number;
  readonly note?: string;
  /** A run was stopped at the time limit: the times are lower bounds, the rates upper bounds. */
  readonly timedOut?: boolean;
}

export interface FramingCaseResult {
  readonly name: string;
  readonly bytes: number;
  readonly messages: number;
  readonly chunks: number;
  readonly ours: ReaderFigures;
  readonly official: ReaderFigures;
  /** Median throughput, ours / official (a lower bound when the official run was stopped). */
  readonly ratio: number;
  /**
   * Each reader's per-line work alone, on lines already split: decode + JSON.parse + classify()
   * (ours) or + zod (official). No reader that delivers parsed messages can beat it.
   */
  readonly parseOnly: { readonly ours: ReaderFigures; readonly official: ReaderFigures };
  /**
   * Fastest total - fastest parse-only run, in ms: the cost of framing itself (fastest runs, as the
   * least disturbed; noisy when small).
   */
  readonly framingMs: { readonly ours: number; readonly official: number };
  /** framingMs official / ours; null when either is lost in the noise (0). */
  readonly framingRatio: number | null;
}

export interface FramingBenchResult {
  readonly benchmark: 'framing';
  readonly date: string;
  readonly environment: {
    node: string;
    v8: string;
    platform: string;
    arch: string;
    cpu: string;
    cpus: number;
    sdkVersion: string;
    gcBetweenRuns: boolean;
  };
  readonly chunkBytes: number;
  readonly maxMessageBytes: number;
  readonly cases: FramingCaseResult[];
  readonly targets: {
    /** At least 20x the official reader on the 8 MiB message (null when that case was not run). */
    readonly large8MiB: TargetResult | null;
    /** No slower than the official reader on small messages (null when that case was not run). */
    readonly small: TargetResult | null;
    /** For information, not a target: the 8 MiB ratio on the framing cost alone (total - parse). */
    readonly large8MiBFramingOnly: TargetResult | null;
  };
  readonly notes: string[];
  /** The JSON file written, if any. */
  file?: string;
}

export interface TargetResult {
  /** How many times better ours is: median throughput ratio (framing only: framing ms, official / ours). */
  readonly ratio: number;
  readonly required: number;
  readonly met: boolean;
}

interface Workload {
  readonly name: string;
  readonly bytes: number;
  readonly messages: number;
  readonly chunks: Buffer[];
  /** The message lines, without their newline, for the parse-only runs. */
  readonly lines: Buffer[];
  /** Throws unless `delivered` is exactly the workload's messages; `full` also deep-compares. */
  check(delivered: unknown[], full: boolean): void;
}

// ---- workloads ----------------------------------------------------------------------------------

/** A small deterministic PRNG (mulberry32), so every run of the bench frames the same bytes. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'found',
  'match',
  'in',
  'src/index.ts',
  'line',
  'ok',
  'file',
  'written',
  'rows',
  'returned',
  'query',
  'took',
  'ms',
  'café',
  'résumé',
  'user',
  'id',
  '"quoted"',
  'path/to/module.js',
  'no',
  'results',
  '✓',
];

function sentence(random: () => number, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(random() * (maxChars - minChars + 1));
  let text = '';
  while (text.length < target) text += `${text ? ' ' : ''}${WORDS[Math.floor(random() * WORDS.length)]}`;
  return text;
}

function toChunks(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) chunks.push(bytes.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

/** A tools/call result as a server writes it. */
function toolResult(id: number, text: string) {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: false } };
}

type ToolResult = ReturnType<typeof toolResult>;

function textOf(message: unknown): string {
  return (message as ToolResult).result.content[0]!.text;
}

function smallMessages(): Workload {
  const random = prng(4);
  const messages: ToolResult[] = [];
  const lines: string[] = [];
  for (let id = 1; id <= SMALL_MESSAGES; id++) {
    const message = toolResult(id, sentence(random, 20, 110));
    messages.push(message);
    lines.push(`${JSON.stringify(message)}\n`);
  }
  const bytes = Buffer.from(lines.join(''));
  const sizes = lines.map((line) => Buffer.byteLength(line));
  const lineBuffers: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    lineBuffers.push(bytes.subarray(at, at + size - 1));
    at += size;
  }
  const min = Math.min(...sizes);
  const max = Math.max(...sizes);
  return {
    name: `${SMALL_MESSAGES.toLocaleString('en-US')} small (${min}-${max} B)`,
    bytes: bytes.length,
    messages: messages.length,
    chunks: toChunks(bytes),
    lines: lineBuffers,
    check(delivered, full) {
      assert.equal(delivered.length, messages.length, 'message count');
      for (let i = 0; i < messages.length; i++) {
        const got = delivered[i] as ToolResult;
        const want = messages[i]!;
        if (full) assert.deepStrictEqual(got, want);
        else {
          assert.equal(got.id, want.id);
          assert.equal(textOf(got), want.result.content[0]!.text);
        }
      }
    },
  };
}

/**
 * One message of exactly `size` bytes (the newline excluded): a tools/call result holding a file's
 * text (lines of code, escaped newlines, quotes, some non-ASCII), like a read_file answer.
 */
function largeMessage(size: number): Workload {
  const random = prng(size);
  const envelope = Buffer.byteLength(JSON.stringify(toolResult(1, '')));
  const parts: string[] = [];
  let encoded = envelope;
  while (encoded < size - 200) {
    const line = `${'  '.repeat(Math.floor(random() * 4))}const x = "${sentence(random, 10, 70)}"; // ${Math.floor(random() * 1e6)}\n`;
    parts.push(line);
    encoded += Buffer.byteLength(JSON.stringify(line)) - 2;
  }
  parts.push('x'.repeat(size - encoded)); // plain ASCII pads to the exact size
  const text = parts.join('');
  const message = toolResult(1, text);
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  assert.equal(bytes.length, size + 1);
  return {
    name: `1 message of ${size / MiB} MiB`,
    bytes: bytes.length,
    messages: 1,
    chunks: toChunks(bytes),
    lines: [bytes.subarray(0, size)],
    check(delivered, full) {
      assert.equal(delivered.length, 1, 'message count');
      if (full) assert.deepStrictEqual(delivered[0], message);
      else assert.ok(textOf(delivered[0]) === text, 'message text');
    },
  };
}

// ---- readers ------------------------------------------------------------------------------------

function ours(workload: Workload): unknown[] {
  const delivered: unknown[] = [];
  let failure: string | undefined;
  const framer = new Framer({
    maxMessageBytes: BENCH_MAX_BYTES,
    maxJunkLines: 10,
    onMessage: (classified) => delivered.push(classified.message),
    onJunk: (reason) => {
      failure ??= `junk line: ${reason}`;
    },
    onFatal: (reason) => {
      failure ??= `fatal: ${reason.type}`;
    },
  });
  for (const chunk of workload.chunks) framer.push(chunk);
  framer.end();
  if (failure) throw new Error(`our framer: ${failure}`);
  return delivered;
}

/** The official reader, driven as StdioClientTransport drives it (client/stdio.js). */
function official(workload: Workload): unknown[] {
  const delivered: unknown[] = [];
  const buffer = new ReadBuffer({ maxBufferSize: BENCH_MAX_BYTES });
  for (const chunk of workload.chunks) {
    buffer.append(chunk);
    for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) {
      delivered.push(message);
    }
  }
  return delivered;
}

/** What our framer does per line once it has the line: decode, JSON.parse, classify. No framing. */
function oursParseOnly(workload: Workload): unknown[] {
  const delivered: unknown[] = [];
  for (const line of workload.lines) {
    const classified = parseMessage(line.toString('utf8'));
    if (classified.kind === 'invalid') throw new Error(`invalid line: ${classified.reason}`);
    delivered.push(classified.message);
  }
  return delivered;
}

/** What ReadBuffer.readMessage() does per line once it has found it: decode, JSON.parse, zod. */
function officialParseOnly(workload: Workload): unknown[] {
  const delivered: unknown[] = [];
  for (const line of workload.lines)
    delivered.push(deserializeMessage(line.toString('utf8').replace(/\r$/, '')));
  return delivered;
}

const READERS = { ours, official, oursParseOnly, officialParseOnly } as const;
type ReaderName = keyof typeof READERS;

// ---- measurement --------------------------------------------------------------------------------

/** A full GC before each run, so one run's garbage is not collected on the next one's clock. */
const collect = collectGarbage;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

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

interface Plan {
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
async function measure(workload: Workload, plans: Record<ReaderName, Plan>): Promise<FramingCaseResult> {
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

// ---- report -------------------------------------------------------------------------------------

function formatMBps(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function formatMs(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function cell(f: ReaderFigures): string {
  if (f.timedOut) return `< ${formatMBps(f.medianMBps)} (stopped at ${formatMs(f.medianMs / 1000)} s)`;
  return `${formatMBps(f.medianMBps)} (±${(f.spreadPercent / 2).toFixed(0)}%, n=${f.runs})`;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}

function throughputTable(cases: FramingCaseResult[]): string[] {
  return table(
    ['case', 'MB', 'ours MB/s', 'official MB/s', 'ours/official'],
    cases.map((c) => [
      c.name,
      (c.bytes / 1e6).toFixed(1),
      cell(c.ours),
      cell(c.official),
      `${c.official.timedOut ? '> ' : ''}${c.ratio.toFixed(c.ratio >= 10 ? 0 : 2)}x`,
    ]),
  );
}

function breakdownTable(cases: FramingCaseResult[]): string[] {
  return table(
    [
      'case',
      'ours total',
      'ours parse',
      'ours framing',
      'official total',
      'official parse',
      'official framing',
      'framing ratio',
    ],
    cases.map((c) => [
      c.name,
      formatMs(c.ours.fastestMs),
      formatMs(c.parseOnly.ours.fastestMs),
      formatMs(c.framingMs.ours),
      formatMs(c.official.fastestMs),
      formatMs(c.parseOnly.official.fastestMs),
      formatMs(c.framingMs.official),
      c.framingRatio === null ? 'n/a' : `${c.framingRatio.toFixed(c.framingRatio >= 10 ? 0 : 1)}x`,
    ]),
  );
}

function sdkVersion(): string {
  try {
    const file = path.join(root, 'node_modules/@modelcontextprotocol/sdk/package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

// ---- entry points -------------------------------------------------------------------------------

/** The bench's cases: `small` (100,000 messages) and one message of 1, 8 or 64 MiB. */
export type FramingCaseName = 'small' | '1' | '8' | '64';

function plansFor(
  name: FramingCaseName,
  runs: number,
  official64MiBRuns: number,
  notes: string[],
  official64MiBTimeLimitMs?: number,
) {
  const all = (plan: Plan): Record<ReaderName, Plan> => ({
    ours: plan,
    official: plan,
    oursParseOnly: plan,
    officialParseOnly: plan,
  });
  if (name === 'small') return all({ warmup: 2, runs });
  if (name === '1') return all({ warmup: 2, runs: runs * 3 }); // short runs: more of them
  if (name === '8') return all({ warmup: 2, runs });
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

/**
 * Runs the framing benchmark, prints its tables through `log`, and (unless `write: false`) writes
 * bench/results/framing-<timestamp>.json. Synchronous work in between yields to the event loop.
 */
export async function runFramingBench(options: FramingBenchOptions = {}): Promise<FramingBenchResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const runs = Math.max(1, options.runs ?? 7);
  const official64MiBRuns = Math.max(1, options.official64MiBRuns ?? 1);
  const names = options.cases ?? ['small', '1', '8', '64'];
  const notes: string[] = [
    'Both readers get the same 64 KiB chunks (views of one buffer) and deliver parsed messages: ' +
      'ours decodes, JSON.parse()s and classify()s each line; the official one decodes, JSON.parse()s and ' +
      'zod-validates it (JSONRPCMessageSchema), driven as its StdioClientTransport drives it.',
    `Both caps raised to ${BENCH_MAX_BYTES / MiB} MiB (Framer maxMessageBytes, ReadBuffer maxBufferSize).`,
    '"parse" = the same reader\'s per-line work (decode + JSON.parse + classify/zod) on lines already split; ' +
      '"framing" = total - parse, the cost of framing itself (fastest runs; noisy when small).',
  ];
  if (!collect) notes.push('No full GC between runs (could not expose gc): expect more spread.');

  const cases: FramingCaseResult[] = [];
  for (const name of names) {
    const workload = name === 'small' ? smallMessages() : largeMessage(Number(name) * MiB);
    log(`framing: ${workload.name} ...`);
    cases.push(
      await measure(
        workload,
        plansFor(name, runs, official64MiBRuns, notes, options.official64MiBTimeLimitMs),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }

  const small = cases.find((c) => c.messages === SMALL_MESSAGES);
  const large8 = cases.find((c) => c.bytes === 8 * MiB + 1);
  const result: FramingBenchResult = {
    benchmark: 'framing',
    date: new Date().toISOString(),
    environment: {
      node: process.version,
      v8: process.versions.v8,
      platform: `${os.type()} ${os.release()}`,
      arch: process.arch,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpus: os.cpus().length,
      sdkVersion: sdkVersion(),
      gcBetweenRuns: collect !== undefined,
    },
    chunkBytes: CHUNK_BYTES,
    maxMessageBytes: BENCH_MAX_BYTES,
    cases,
    targets: {
      large8MiB: large8 ? { ratio: large8.ratio, required: 20, met: large8.ratio >= 20 } : null,
      small: small ? { ratio: small.ratio, required: 1, met: small.ratio >= 1 } : null,
      large8MiBFramingOnly:
        large8 && large8.framingRatio !== null
          ? { ratio: large8.framingRatio, required: 20, met: large8.framingRatio >= 20 }
          : null,
    },
    notes,
  };

  const environment = result.environment;
  log('');
  log(
    `Framing in ${CHUNK_BYTES / KiB} KiB chunks: conduit-mcp Framer vs @modelcontextprotocol/sdk ` +
      `${environment.sdkVersion} ReadBuffer. ${environment.node}, ${environment.cpu} x${environment.cpus}.`,
  );
  log('Throughput, MB/s (1 MB = 10^6 bytes), median (± half the range over n runs):');
  log('');
  for (const line of throughputTable(cases)) log(line);
  log('');
  log('Where the time goes, ms, fastest run of each:');
  log('');
  for (const line of breakdownTable(cases)) log(line);
  log('');
  const verdict = (target: TargetResult | null, missing = 'not run') =>
    target ? `${target.ratio.toFixed(2)}x (${target.met ? 'met' : 'MISSED'})` : missing;
  log(`target, 8 MiB message >= 20x official: ${verdict(result.targets.large8MiB)}`);
  log(`target, small messages >= 1x official: ${verdict(result.targets.small)}`);
  log(
    `for information, 8 MiB framing alone (total - parse) >= 20x official: ${verdict(
      result.targets.large8MiBFramingOnly,
      large8 ? 'n/a (a framing cost within the noise)' : 'not run',
    )}`,
  );
  for (const note of notes) log(`note: ${note}`);

  if (options.write ?? true) {
    const directory = path.join(root, 'bench/results');
    mkdirSync(directory, { recursive: true });
    const file = path.join(directory, `framing-${result.date.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    result.file = file;
    log(`results written to ${path.relative(process.cwd(), file)}`);
  }
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      'official-64-runs': { type: 'string' },
      'official-64-limit': { type: 'string' },
      cases: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const cases = values.cases?.split(',').map((name) => {
    if (!['small', '1', '8', '64'].includes(name)) throw new Error(`--cases: unknown case ${name}`);
    return name as FramingCaseName;
  });
  await runFramingBench({
    runs: number(values.runs),
    official64MiBRuns: number(values['official-64-runs']),
    official64MiBTimeLimitMs:
      values['official-64-limit'] === undefined ? undefined : Number(values['official-64-limit']) * 1000,
    cases,
    write: !values['no-write'],
  });
}
