// The framing benchmark's settings and results (issue 4): our Framer against the official SDK's
// ReadBuffer, same process, same 64 KiB chunks, bytes in -> parsed, validated JSON-RPC messages out.
const KiB = 1024;
const MiB = 1024 * KiB;
/** Node's pipe reads arrive in chunks of up to 64 KiB. */
export const CHUNK_BYTES = 64 * KiB;
export const SMALL_MESSAGES = 100_000;
const LARGE_SIZES = [1 * MiB, 8 * MiB, 64 * MiB] as const;
/** Both readers get the same raised cap, above the largest message. */
export const BENCH_MAX_BYTES = 2 * LARGE_SIZES[LARGE_SIZES.length - 1]!;

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
  /** Warm-up runs per reader on the small, 1 and 8 MiB cases (the first checks the output). @defaultValue 2 */
  readonly warmups?: number;
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

/** The bench's cases: `small` (100,000 messages) and one message of 1, 8 or 64 MiB. */
export type FramingCaseName = 'small' | '1' | '8' | '64';
