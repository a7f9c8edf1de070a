// ClientPool figures: time to all ready for 100 servers against the raw floor (the same 100
// processes spawned with no library, each sent initialize and answered), client heap per server,
// and close() of 100 until the last process is gone. Run: node --import tsx bench/pool.ts
import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ClientPool } from '../src/index.js';
import { isRunningState, readProcStat } from '../src/transport/stdio/process-group.js';

const SERVERS = 100;
const RUNS = 3;
const server = path.resolve(import.meta.dirname, '../test/fixtures/servers/named-tools.mjs');
const args = [server, '["echo"]'];

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
};
const running = (pid: number) => {
  const stat = readProcStat(pid);
  return stat !== undefined && isRunningState(stat.state);
};
async function allGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (pids.some(running)) {
    if (Date.now() > deadline) throw new Error('processes still running after 30 s');
    await sleep(5);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The floor: spawn every server, send initialize, wait for every answer. */
async function raw(): Promise<{ readyMs: number; pids: number[]; stop: () => void }> {
  const started = performance.now();
  const children = Array.from({ length: SERVERS }, () =>
    // The same allowlisted environment the transport gives (NODE_EXTRA_CA_CERTS & co. slow Node's start).
    spawn(process.execPath, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    }),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.stdout!.once('data', () => resolve());
          child.stdin!.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
          );
        }),
    ),
  );
  const readyMs = performance.now() - started;
  return {
    readyMs,
    pids: children.map((c) => c.pid!),
    stop: () => {
      for (const child of children) child.stdin!.end();
    },
  };
}

async function pooled(concurrency: number | undefined) {
  const servers = Object.fromEntries(
    Array.from({ length: SERVERS }, (_, i) => [
      `s${i}`,
      { transport: { type: 'stdio' as const, command: process.execPath, args, stderr: 'discard' as const } },
    ]),
  );
  await collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const pool = new ClientPool({ servers, ...(concurrency ? { concurrency } : {}) });
  await pool.connect();
  const readyMs = performance.now() - started;
  if (!pool.status().every((s) => s.state === 'ready')) throw new Error('a server did not become ready');
  await collect();
  const heapPerServer = (process.memoryUsage().heapUsed - heapBefore) / SERVERS;
  const pids = pool.status().map((s) => s.pid!);
  const closing = performance.now();
  await pool.close();
  await allGone(pids);
  return { readyMs, heapPerServer, closeMs: performance.now() - closing };
}

const rows: Record<string, number[]> = { raw: [], poolDefault: [], poolAll: [], heap: [], close: [] };
for (let run = 0; run < RUNS; run++) {
  const floor = await raw();
  rows.raw!.push(floor.readyMs);
  floor.stop();
  await allGone(floor.pids);
  const all = await pooled(SERVERS);
  rows.poolAll!.push(all.readyMs);
  rows.heap!.push(all.heapPerServer);
  rows.close!.push(all.closeMs);
  rows.poolDefault!.push((await pooled(undefined)).readyMs);
}
const floor = median(rows.raw!);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(`ClientPool, ${SERVERS} servers (named-tools fixture, legacy era), median of ${RUNS} runs`);
console.log(`  raw floor (spawn + initialize, no library):     ${floor.toFixed(0)} ms`);
console.log(
  `  pool, concurrency ${SERVERS}:                        ${median(rows.poolAll!).toFixed(0)} ms (${(median(rows.poolAll!) / floor).toFixed(2)}x the floor)`,
);
console.log(
  `  pool, default concurrency (CPUs x 4):            ${median(rows.poolDefault!).toFixed(0)} ms (${(median(rows.poolDefault!) / floor).toFixed(2)}x the floor)`,
);
console.log(`  client heap per server (ready, after GC):        ${kib(median(rows.heap!))}`);
console.log(`  close() of ${SERVERS} until the last process is gone:   ${median(rows.close!).toFixed(0)} ms`);
