// Scenarios that need a client process of their own, so that its memory is the client's alone.
// bench/run.ts starts one child per client and run; the child prints one JSON line and exits.
//
//   node --import tsx bench/child.ts flood <client> [MiB]  a server that stops reading; send 64 MiB
//   node --import tsx bench/child.ts many <client> <count> <count> servers from this one process
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { type BenchConnection, CLIENTS, type ClientId } from './clients/index.js';
import { killStrayServers, statusKiB, strayServers, waitGone } from './core/processes.js';
import { collectGarbage, heapKiB, settleHeap } from './core/stats.js';

const KiB = 1024;

/** What `flood` sends by default: 1,024 tools/call requests of 64 KiB each (64 MiB), 16 per turn. */
const FLOOD = { messages: 1024, messageBytes: 64 * KiB, perTurn: 16 } as const;

export interface FloodResult {
  readonly scenario: 'flood';
  readonly client: ClientId;
  /** VmHWM once connected, before sending: the process's peak so far. */
  readonly baselineKiB: number;
  /** VmHWM after sending 64 MiB and waiting. */
  readonly peakKiB: number;
  /** VmRSS at the end. */
  readonly endKiB: number;
  readonly bytesOffered: number;
  /** How many calls had settled (rejected) by the end; the rest were still pending. */
  readonly settled: number;
  /** Why the client closed on its own, if it did. */
  readonly closedBecause: string | null;
  /** The first rejection's message. */
  readonly firstError: string | null;
  /** process.memoryUsage() at the end, in MiB, before and after a full GC. */
  readonly memoryMiB: { readonly before: MemoryMiB; readonly afterGc: MemoryMiB };
}

interface MemoryMiB {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

function memoryMiB(): MemoryMiB {
  const usage = process.memoryUsage();
  const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  return {
    rss: mib(usage.rss),
    heapUsed: mib(usage.heapUsed),
    external: mib(usage.external),
    arrayBuffers: mib(usage.arrayBuffers),
  };
}

export interface ManyResult {
  readonly scenario: 'many';
  readonly client: ClientId;
  readonly count: number;
  /** From the first connect call until every client is ready. */
  readonly readyMs: number;
  /** Connections that failed to come up or to answer. */
  readonly failures: number;
  readonly firstError: string | null;
  /** This process's VmRSS before and after (after a GC), in KiB. */
  readonly rssBeforeKiB: number;
  readonly rssAfterKiB: number;
  /** (after - before) / count: this process's memory per server. */
  readonly clientKiBPerServer: number;
  /** The same from V8's heap and external memory (steadier than RSS). */
  readonly heapKiBPerServer: number;
  /** The servers' own mean VmRSS, for reference (the same server for every client). */
  readonly serverMeanKiB: number;
  /** From the first close() until every server process is gone. */
  readonly allGoneMs: number;
}

async function flood(id: ClientId, messages: number): Promise<FloodResult> {
  const connection = await CLIENTS[id].connect(
    { mode: 'legacy', stopReadingAfterInit: true },
    { noReconnect: true },
  );
  // One answer, so every code path has run once before the baseline.
  collectGarbage?.();
  await sleep(100);
  const baselineKiB = statusKiB('VmHWM') ?? 0;
  // The server stops reading once it has seen notifications/initialized; the text is shared, every
  // request's serialised line is not.
  const text = 'x'.repeat(FLOOD.messageBytes - 120);
  let settled = 0;
  let firstError: string | null = null;
  const calls: Promise<void>[] = [];
  for (let sent = 0; sent < messages; sent += FLOOD.perTurn) {
    for (let i = 0; i < FLOOD.perTurn; i++) {
      calls.push(
        connection.call('echo', { text }).then(
          () => {
            settled++;
          },
          (error: Error) => {
            settled++;
            firstError ??= error.message;
          },
        ),
      );
    }
    await nextTurn();
  }
  // Let the writes go as far as they can.
  await sleep(1000);
  const peakKiB = statusKiB('VmHWM') ?? 0;
  const endKiB = statusKiB('VmRSS') ?? 0;
  const before = memoryMiB();
  collectGarbage?.();
  const afterGc = memoryMiB();
  const result: FloodResult = {
    scenario: 'flood',
    client: id,
    baselineKiB,
    peakKiB,
    endKiB,
    bytesOffered: messages * FLOOD.messageBytes,
    settled,
    closedBecause: connection.closedBecause ?? null,
    firstError,
    memoryMiB: { before, afterGc },
  };
  if (connection.pid !== undefined) {
    try {
      process.kill(connection.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await killStrayServers();
  return result;
}

async function many(id: ClientId, count: number): Promise<ManyResult> {
  // Warm-up: a few servers up and down, so that loading, compiling and first-use costs are paid.
  const warm = await Promise.all(Array.from({ length: 4 }, () => CLIENTS[id].connect({ mode: 'legacy' })));
  await Promise.all(warm.map((connection) => connection.call('echo', { text: 'warm' })));
  await Promise.all(warm.map((connection) => connection.close()));
  await Promise.all(
    warm.map((connection) => (connection.pid === undefined ? true : waitGone(connection.pid))),
  );
  await settleHeap();
  const rssBeforeKiB = statusKiB('VmRSS') ?? 0;
  const heapBeforeKiB = heapKiB();
  let firstError: string | null = null;
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, () => CLIENTS[id].connect({ mode: 'legacy' })),
  );
  const readyMs = performance.now() - started;
  const connections: BenchConnection[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') connections.push(outcome.value);
    else firstError ??= String((outcome.reason as Error)?.message ?? outcome.reason);
  }
  // Every server answers one echo, checked.
  const answers = await Promise.allSettled(
    connections.map(async (connection, i) => {
      const text = `server ${i}`;
      const got = await connection.call('echo', { text });
      if (got !== text) throw new Error(`wrong echo from server ${i}: ${got}`);
    }),
  );
  let failures = count - connections.length;
  for (const answer of answers) {
    if (answer.status === 'rejected') {
      failures++;
      firstError ??= String((answer.reason as Error)?.message ?? answer.reason);
    }
  }
  await settleHeap();
  const rssAfterKiB = statusKiB('VmRSS') ?? 0;
  const heapAfterKiB = heapKiB();
  const serverRss = connections.map((c) => (c.pid === undefined ? undefined : statusKiB('VmRSS', c.pid)));
  const known = serverRss.filter((kib): kib is number => kib !== undefined);
  const closing = performance.now();
  await Promise.allSettled(connections.map((c) => c.close()));
  await Promise.all(connections.map((c) => (c.pid === undefined ? true : waitGone(c.pid, 20_000))));
  const allGoneMs = performance.now() - closing;
  await killStrayServers();
  return {
    scenario: 'many',
    client: id,
    count,
    readyMs,
    failures,
    firstError,
    rssBeforeKiB,
    rssAfterKiB,
    clientKiBPerServer: (rssAfterKiB - rssBeforeKiB) / count,
    heapKiBPerServer: (heapAfterKiB - heapBeforeKiB) / count,
    serverMeanKiB: known.length ? known.reduce((a, b) => a + b, 0) / known.length : Number.NaN,
    allGoneMs,
  };
}

const [scenario, client, countText] = process.argv.slice(2);
if (!client || !(client in CLIENTS)) throw new Error(`unknown client ${client}`);
const id = client as ClientId;
let result: FloodResult | ManyResult;
if (scenario === 'flood') {
  const mib = Number(countText ?? (FLOOD.messages * FLOOD.messageBytes) / 1024 / 1024);
  result = await flood(id, Math.round((mib * 1024 * 1024) / FLOOD.messageBytes));
} else if (scenario === 'many') result = await many(id, Number(countText ?? 100));
else throw new Error(`unknown scenario ${scenario}`);
process.stdout.write(`${JSON.stringify(result)}\n`);
// Whatever a client left behind (a pending request, a shutdown timer) must not keep us here.
if (strayServers().length > 0) await killStrayServers();
process.exit(0);
