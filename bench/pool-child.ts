// One sample of the pool scenario (bench/scenarios/pool.ts), in a process of its own so that its
// memory is the client's alone. Prints one JSON line and exits.
//
//   node --expose-gc --import tsx bench/pool-child.ts <raw|pool> <count> [concurrency] [probe|legacy]
//
// raw: the floor. The same <count> processes spawned with the same options the stdio transport
//   uses (`node` looked up in PATH, the allowlisted environment, detached, stderr ignored), each
//   sent initialize and answered, then notifications/initialized; no library. With a concurrency,
//   at most that many are between spawn and answer at once. With `probe`, each first sends the era
//   probe (server/discover, answered -32601) and initialize only after its answer, as the pool does:
//   what the probe's round trip costs the floor itself.
// pool: a ClientPool of <count> servers (default protocol: the server/discover probe, -32601, then
//   initialize), connect() until every server is ready. With `legacy`, `protocol: 'legacy'` (no probe).
// Both: a warm-up of 4 servers first; then the time until all are ready, the servers' CPU time by
// then, the time until every tools list is also fetched (the pool's listTools(); raw sends tools/list
// to every server once all are ready), after GC the (V8 heap + external) growth per server with all
// up and listed, and from close (pool.close(), or stdin EOF for raw) until the last process is gone.
import { spawn } from 'node:child_process';
import v8 from 'node:v8';
import { loadConduit } from './clients/conduit.js';
import { minimalEnvironment, serverArgs } from './clients/types.js';
import { killStrayServers, processThreadsCpuMs, waitGone } from './core/processes.js';
import { heapKiB, settleHeap } from './core/stats.js';

export interface PoolSample {
  readonly mode: 'raw' | 'pool';
  readonly count: number;
  /** At most this many servers between spawn and ready at once. */
  readonly concurrency: number;
  readonly readyMs: number;
  /** This process's CPU time (user + system) from the first spawn until all are ready. */
  readonly cpuMs: number;
  /** The servers' CPU time (every thread of each, from its schedstat) when all are ready. */
  readonly serversCpuMs: number;
  /**
   * From the first spawn until all are ready and every server's tools list is fetched: the pool's
   * `connect()` then `listTools()`; raw sends tools/list to every server once all are ready.
   */
  readonly listedMs: number;
  readonly heapKiBPerServer: number;
  /**
   * The part of heapKiBPerServer that is V8's code spaces: what the JIT compiled meanwhile, which
   * does not grow with the server count and moves with when the compiler ran.
   */
  readonly codeKiBPerServer: number;
  /** From close until every server process is gone. */
  readonly closeMs: number;
  readonly failures: number;
  readonly firstError: string | null;
}

const COMMAND = 'node';
const ARGS = serverArgs({ mode: 'legacy' });

interface Started {
  readonly pids: number[];
  readonly failures: number;
  readonly firstError: string | null;
  /** Every server's tools list, as a host asks for it right after the start. */
  listTools(): Promise<unknown>;
  close(): Promise<void>;
}

/** A slot count: at most `size` callers between acquire and release. */
function slots(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    acquire: async () => {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})}\n`;
const PROBE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
})}\n`;
const INITIALIZED = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;
const TOOLS_LIST = `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;

/** Sends tools/list to a raw child and resolves with the tools of its answer. */
function rawListTools(child: ReturnType<typeof spawn>): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', function onData(chunk: string) {
      text += chunk;
      const end = text.indexOf('\n');
      if (end === -1) return;
      child.stdout!.off('data', onData);
      const answer = JSON.parse(text.slice(0, end)) as { result?: { tools?: unknown[] } };
      if (answer.result?.tools) resolve(answer.result.tools);
      else reject(new Error(`tools/list failed: ${text.slice(0, 200)}`));
    });
    child.stdin!.write(TOOLS_LIST);
  });
}

async function startRaw(count: number, concurrency: number, probe: boolean): Promise<Started> {
  const env = minimalEnvironment();
  const limit = slots(concurrency);
  const children: ReturnType<typeof spawn>[] = [];
  const one = async () => {
    await limit.acquire();
    try {
      const child = spawn(COMMAND, ARGS, { env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
      children.push(child);
      child.stdin!.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        let text = '';
        let probing = probe;
        child.once('error', reject);
        child.stdout!.setEncoding('utf8').on('data', function onData(chunk: string) {
          text += chunk;
          const end = text.indexOf('\n');
          if (end === -1) return;
          const answer = JSON.parse(text.slice(0, end)) as { result?: unknown; error?: { code?: unknown } };
          text = text.slice(end + 1);
          if (probing) {
            probing = false;
            if (answer.error?.code !== -32601) reject(new Error(`the probe got ${JSON.stringify(answer)}`));
            child.stdin!.write(INITIALIZE);
            return;
          }
          child.stdout!.off('data', onData);
          if (!answer.result) reject(new Error(`initialize failed: ${JSON.stringify(answer).slice(0, 200)}`));
          child.stdin!.write(INITIALIZED);
          resolve();
        });
        child.stdin!.write(probe ? PROBE : INITIALIZE);
      });
    } finally {
      limit.release();
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: count }, one));
  const rejected = outcomes.filter((o) => o.status === 'rejected');
  return {
    pids: children.flatMap((c) => (c.pid === undefined ? [] : [c.pid])),
    failures: rejected.length,
    firstError: rejected.length ? String((rejected[0] as PromiseRejectedResult).reason) : null,
    listTools: () => Promise.all(children.map(rawListTools)),
    close: async () => {
      for (const child of children) child.stdin!.end();
    },
  };
}

async function startPool(count: number, concurrency: number | undefined, legacy: boolean): Promise<Started> {
  // From the built dist/, as users run it and as the `many` scenario loads the Client.
  const { ClientPool } = await loadConduit();
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `s${i}`,
      {
        transport: { type: 'stdio' as const, command: COMMAND, args: ARGS, stderr: 'discard' as const },
        ...(legacy ? { protocol: 'legacy' as const } : {}),
      },
    ]),
  );
  const pool = new ClientPool({ servers, ...(concurrency === undefined ? {} : { concurrency }) });
  await pool.connect();
  const status = pool.status();
  const down = status.filter((s) => s.state !== 'ready');
  return {
    pids: status.flatMap((s) => (s.pid === undefined ? [] : [s.pid])),
    failures: down.length,
    firstError: down.length ? `${down[0]!.name} ${down[0]!.state}: ${down[0]!.error?.message}` : null,
    listTools: () => pool.listTools(),
    close: () => pool.close(),
  };
}

/** Lists every server's tools; resolves with the time since `since` (the list itself is dropped). */
async function untilListed(started: Started, since: number): Promise<number> {
  const listed = (await started.listTools()) as { tools?: unknown[] } | unknown[][];
  const lists = Array.isArray(listed) ? listed : [listed.tools];
  if (!lists.every((list) => Array.isArray(list) && list.length > 0)) throw new Error('an empty tools list');
  return performance.now() - since;
}

/** V8's code spaces in use, KiB (part of heapKiB()). */
function codeKiB(): number {
  const code = v8.getHeapSpaceStatistics().filter((space) => space.space_name.startsWith('code_'));
  return code.reduce((sum, space) => sum + space.space_used_size, 0) / 1024;
}

async function stop(started: Started): Promise<number> {
  const since = performance.now();
  await started.close();
  const gone = await Promise.all(started.pids.map((pid) => waitGone(pid, 20_000)));
  if (gone.includes(false)) throw new Error('a server was still running 20 s after close');
  return performance.now() - since;
}

const [mode, countText, concurrencyText, variant] = process.argv.slice(2);
if (mode !== 'raw' && mode !== 'pool') throw new Error(`unknown mode ${mode}: raw or pool`);
if (variant !== undefined && variant !== (mode === 'raw' ? 'probe' : 'legacy')) {
  throw new Error(`unknown variant ${variant}: raw takes probe, pool takes legacy`);
}
const count = Number(countText ?? 100);
const start = (n: number, limit: number | undefined) =>
  mode === 'raw' ? startRaw(n, limit ?? n, variant === 'probe') : startPool(n, limit, variant === 'legacy');
const asked =
  concurrencyText === undefined || concurrencyText === 'default' ? undefined : Number(concurrencyText);

const warmUp = await start(4, asked);
await untilListed(warmUp, performance.now());
await stop(warmUp);
await settleHeap();
const heapBefore = heapKiB();
const codeBefore = codeKiB();
const cpuBefore = process.cpuUsage();
const since = performance.now();
const started = await start(count, asked);
const readyMs = performance.now() - since;
const cpu = process.cpuUsage(cpuBefore);
const serversCpuMs = started.pids.reduce((sum, pid) => sum + (processThreadsCpuMs(pid) ?? 0), 0);
const listedMs = await untilListed(started, since);
await settleHeap();
const heapKiBPerServer = (heapKiB() - heapBefore) / count;
const codeKiBPerServer = (codeKiB() - codeBefore) / count;
const closeMs = await stop(started);
const { availableParallelism } = await import('node:os');
const sample: PoolSample = {
  mode,
  count,
  concurrency: asked ?? (mode === 'raw' ? count : availableParallelism() * 4),
  readyMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  serversCpuMs,
  listedMs,
  heapKiBPerServer,
  codeKiBPerServer,
  closeMs,
  failures: started.failures,
  firstError: started.firstError,
};
process.stdout.write(`${JSON.stringify(sample)}\n`);
await killStrayServers();
process.exit(0);
