// The two readers, driven as their clients drive them, and each one's per-line work alone (on
// lines already split) to tell the cost of framing from the cost of parsing.
import { deserializeMessage, ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { parseMessage } from '../../src/jsonrpc/classify.js';
import { Framer } from '../../src/transport/stdio/framer.js';
import { BENCH_MAX_BYTES } from './types.js';
import type { Workload } from './workloads.js';

export function ours(workload: Workload): unknown[] {
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
export function oursParseOnly(workload: Workload): unknown[] {
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

export const READERS = { ours, official, oursParseOnly, officialParseOnly } as const;
export type ReaderName = keyof typeof READERS;
