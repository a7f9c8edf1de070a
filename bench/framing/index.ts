// The framing benchmark (issue 4), as bench/run.ts's framing scenario and bench/framing.ts run it.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageVersion, root } from '../clients/types.js';
import { collectGarbage } from '../core/stats.js';
import { measure, plansFor } from './measure.js';
import { breakdownTable, throughputTable } from './report.js';
import {
  BENCH_MAX_BYTES,
  CHUNK_BYTES,
  type FramingBenchOptions,
  type FramingBenchResult,
  type FramingCaseResult,
  SMALL_MESSAGES,
  type TargetResult,
} from './types.js';
import { largeMessage, smallMessages } from './workloads.js';

export type * from './types.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const collect = collectGarbage;

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
        plansFor(name, runs, official64MiBRuns, notes, options.official64MiBTimeLimitMs, options.warmups),
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
      sdkVersion: packageVersion('@modelcontextprotocol/sdk'),
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
