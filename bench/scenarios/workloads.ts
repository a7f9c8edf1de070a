// The throughput workloads: what one sample does over one connected client. Every answer is
// checked; a wrong one throws, which invalidates the sample.
import { type BenchConnection, checkBytesText } from '../clients/index.js';
import type { Bench } from '../core/runner.js';

const MiB = 1024 * 1024;

export interface Workload {
  readonly id: string;
  readonly title: string;
  readonly unit: 'calls/s' | 'MiB/s';
  /** Calls, or MiB, per sample. */
  readonly amount: number;
  run(connection: BenchConnection): Promise<void>;
}

export async function echoOnce(connection: BenchConnection, i: number): Promise<void> {
  const text = `echo ${i}`;
  const got = await connection.call('echo', { text });
  if (got !== text) throw new Error(`wrong echo for call ${i}: ${JSON.stringify(got).slice(0, 80)}`);
}

export function sequential(calls: number): Workload {
  return {
    id: 'sequential',
    title: `${calls.toLocaleString('en-US')} sequential tools/call echo`,
    unit: 'calls/s',
    amount: calls,
    async run(connection) {
      for (let i = 0; i < calls; i++) await echoOnce(connection, i);
    },
  };
}

export function inFlight(calls: number, inFlight: number): Workload {
  return {
    id: 'in-flight',
    title: `${calls.toLocaleString('en-US')} calls, ${inFlight} in flight`,
    unit: 'calls/s',
    amount: calls,
    async run(connection) {
      let next = 0;
      const worker = async () => {
        while (next < calls) await echoOnce(connection, next++);
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    },
  };
}

/** `as`: how the HTTP bench server answers (`sse`: a one-event stream); stdio ignores it. */
export function bytes(size: number, calls: number, as?: 'json' | 'sse'): Workload {
  const args = as === 'sse' ? { bytes: size, sse: true } : { bytes: size };
  return {
    id: `bytes-${size / MiB}m${as ? `-${as}` : ''}`,
    title: `${size / MiB} MiB results${as ? ` as ${as.toUpperCase()}` : ''} (${calls} sequential calls)`,
    unit: 'MiB/s',
    amount: (size * calls) / MiB,
    async run(connection) {
      for (let i = 0; i < calls; i++) checkBytesText(await connection.call('bytes', args), size);
    },
  };
}

/** The four workloads of the throughput groups, at their full or their --quick size. */
export function throughputWorkloads(bench: Bench): Workload[] {
  return [
    sequential(bench.size(5000, 500)),
    inFlight(bench.size(20_000, 2000), 256),
    bytes(1 * MiB, bench.size(32, 4)),
    bytes(8 * MiB, bench.size(4, 1)),
  ];
}
