// Soak: many requests and many server restarts through one Client per era, reporting RSS over time.
//
//   npm run soak                                      # each era: 1,000,000 requests, 1,000 restarts
//   npm run soak -- --requests 20000 --restarts 20    # a short run
//   npm run soak -- --era modern --restarts 0         # one era, no restarts
//
// Options (or the environment variables in brackets):
//   --requests N     requests in all [SOAK_REQUESTS] (default 1000000)
//   --restarts N     server restarts, spread evenly: the server crashes, the client restarts it [SOAK_RESTARTS] (default 1000)
//   --concurrency N  requests in flight at once [SOAK_CONCURRENCY] (default 32)
//   --every N        print a line every N requests [SOAK_EVERY] (default requests / 20)
//   --era E          legacy, modern or both, one after the other [SOAK_ERA] (default both)
//   --max-seconds S  each era must finish within S seconds [SOAK_MAX_SECONDS] (default 900)
//
// The server is test/fixtures/servers/mcp.mjs in the era given. Each request is a tools/call of
// `echo` whose answer is checked. Exits with status 1 if a request failed, a result was wrong, a
// server process outlived the client, an era ran out of time, the throughput of the last tenth of
// the requests fell more than 10% under the first tenth's, or the heap grew (after a full GC) by more
// than 4 MiB from the end of the first tenth to the end. Throughput counts request time only: the
// time spent waiting for a crashed server to come back is left out of both tenths, because a spawn
// takes as long as thousands of requests and would otherwise decide the comparison.
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '../src/index.js';
import { groupIsEmpty } from '../src/transport/stdio/process-group.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: process.env.SOAK_REQUESTS ?? '1000000' },
    restarts: { type: 'string', default: process.env.SOAK_RESTARTS ?? '1000' },
    concurrency: { type: 'string', default: process.env.SOAK_CONCURRENCY ?? '32' },
    every: { type: 'string', default: process.env.SOAK_EVERY },
    era: { type: 'string', default: process.env.SOAK_ERA ?? 'both' },
    'max-seconds': { type: 'string', default: process.env.SOAK_MAX_SECONDS ?? '900' },
  },
});

function positive(name: string, text: string | undefined, min: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    console.error(`--${name} must be an integer >= ${min}, got ${text}`);
    process.exit(2);
  }
  return value;
}

const REQUESTS = positive('requests', values.requests, 1);
const RESTARTS = positive('restarts', values.restarts, 0);
const CONCURRENCY = positive('concurrency', values.concurrency, 1);
const EVERY = positive('every', values.every ?? String(Math.max(1, Math.round(REQUESTS / 20))), 1);
const MAX_SECONDS = positive('max-seconds', values['max-seconds'], 1);
if (!['legacy', 'modern', 'both'].includes(values.era)) {
  console.error(`--era must be legacy, modern or both, got ${values.era}`);
  process.exit(2);
}
const ERAS = values.era === 'both' ? (['legacy', 'modern'] as const) : [values.era as 'legacy' | 'modern'];
/** The requests of one tenth, for the throughput and heap comparison. */
const TENTH = Math.max(1, Math.floor(REQUESTS / 10));
/** Allowed throughput loss from the first tenth to the last, and heap growth after GC. */
const MAX_DECAY = 0.1;
const MAX_HEAP_GROWTH = 4 * 1024 * 1024;

const gc = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1);

const pids: number[] = [];
dc.subscribe('conduit-mcp:transport:spawn', (message) => {
  pids.push((message as { pid: number }).pid);
});

interface EraOutcome {
  readonly era: string;
  readonly ok: boolean;
}

async function soak(era: 'legacy' | 'modern'): Promise<EraOutcome> {
  const firstPid = pids.length;
  const client = new Client({
    name: 'soak',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [path.resolve(import.meta.dirname, '../test/fixtures/servers/mcp.mjs'), '--era', era],
      stderr: 'discard',
      stdinGrace: 500,
      termGrace: 500,
    },
    requestTimeout: 30_000,
    // Restart at once after each deliberate crash; a crash loop would still give up.
    reconnect: { maxReconnects: 5, initialDelay: 0, maxDelay: 100, jitter: 0, resetAfter: 0 },
  });

  let readies = 0;
  client.on('ready', () => {
    readies++;
  });

  const failures = new Map<string, number>();
  const fail = (kind: string) => failures.set(kind, (failures.get(kind) ?? 0) + 1);

  let done = 0;
  const started = performance.now();
  let lastLine = { at: started, done: 0 };
  const samples: Array<{ done: number; rss: number; heap: number }> = [];
  /** Request time (restarts left out) when the first tenth ended, the last began and all ended, in ms, and the heap after GC at both ends. */
  const tenths = { firstEnd: 0, lastStart: 0, lastEnd: 0, heapAfterFirst: 0, heapAtEnd: 0 };
  /** Time spent waiting for restarts so far (ms). */
  let restartMs = 0;
  const requestTime = () => performance.now() - restartMs;
  let timedOut = false;

  function report(final = false): void {
    const now = performance.now();
    const { rss, heapUsed } = process.memoryUsage();
    samples.push({ done, rss, heap: heapUsed });
    const rate = final ? '-' : ((done - lastLine.done) / ((now - lastLine.at) / 1000)).toFixed(0);
    lastLine = { at: now, done };
    console.log(
      `${((now - started) / 1000).toFixed(1).padStart(7)} s  requests ${String(done).padStart(8)}  restarts ${String(
        Math.max(0, readies - 1),
      ).padStart(
        5,
      )}  ${rate.padStart(6)} req/s  rss ${mb(rss).padStart(6)} MB  heap ${mb(heapUsed).padStart(6)} MB${final ? '  (end)' : ''}`,
    );
  }

  /** Runs `count` requests, `CONCURRENCY` at a time. */
  async function segment(count: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < count && !timedOut) {
        next++;
        const n = done;
        try {
          const result = await client.callTool({ name: 'echo', arguments: { n } });
          if (result.content[0]?.type !== 'text' || result.content[0].text !== `{"n":${n}}`)
            fail('wrong result');
        } catch (error) {
          fail((error as Error).name);
        }
        done++;
        if (done === TENTH) {
          tenths.firstEnd = requestTime();
          gc?.();
          tenths.heapAfterFirst = process.memoryUsage().heapUsed;
        }
        if (done === REQUESTS - TENTH) tenths.lastStart = requestTime();
        if (done === REQUESTS) {
          tenths.lastEnd = requestTime();
          gc?.();
          tenths.heapAtEnd = process.memoryUsage().heapUsed;
        }
        if (performance.now() - started > MAX_SECONDS * 1000) timedOut = true;
        if (done % EVERY === 0) report();
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
  }

  /** Crashes the server and waits until the client has restarted it. */
  async function restart(): Promise<void> {
    const began = performance.now();
    const ready = once(client, 'ready');
    await client.callTool({ name: 'crash', arguments: { code: 1 } }).then(
      () => fail('crash answered'),
      () => {},
    );
    await ready;
    restartMs += performance.now() - began;
  }

  console.log(
    `soak, ${era} era: ${REQUESTS} requests, ${RESTARTS} restarts, ${CONCURRENCY} in flight, a line every ${EVERY} requests, at most ${MAX_SECONDS} s (gc ${gc ? 'available' : 'not available'})`,
  );
  await client.connect();
  const connected = requestTime();
  report();
  const baseline = { rss: process.memoryUsage().rss };
  for (let part = 0; part <= RESTARTS; part++) {
    // Part p ends at floor(REQUESTS * (p + 1) / (RESTARTS + 1)) requests.
    const end = Math.floor((REQUESTS * (part + 1)) / (RESTARTS + 1));
    await segment(end - done);
    if (timedOut) break;
    if (part < RESTARTS) await restart();
  }
  if (done % EVERY !== 0) report();
  const finished = performance.now();
  const elapsed = (finished - started) / 1000;
  await client.close();

  // Every server process (and its group) must be gone.
  const deadline = Date.now() + 10_000;
  const spawned = pids.slice(firstPid);
  let alive = spawned.filter((pid) => !groupIsEmpty(pid, process.platform));
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter((pid) => !groupIsEmpty(pid, process.platform));
  }
  gc?.();
  gc?.();
  const end = process.memoryUsage();
  report(true);

  const rssValues = samples.map((sample) => sample.rss);
  const secondHalf = samples.slice(Math.floor(samples.length / 2));
  console.log('\nsummary');
  console.log(`  requests       ${done} in ${elapsed.toFixed(1)} s (${(done / elapsed).toFixed(0)} req/s)`);
  console.log(`  restarts       ${readies - 1} (servers spawned: ${spawned.length})`);
  console.log(
    `  failures       ${failures.size === 0 ? 'none' : JSON.stringify(Object.fromEntries(failures))}`,
  );
  console.log(
    `  rss            start ${mb(baseline.rss)} MB, min ${mb(Math.min(...rssValues))} MB, max ${mb(Math.max(...rssValues))} MB, end ${mb(end.rss)} MB`,
  );
  console.log(
    `  rss, 2nd half  min ${mb(Math.min(...secondHalf.map((s) => s.rss)))} MB, max ${mb(Math.max(...secondHalf.map((s) => s.rss)))} MB`,
  );
  console.log(`  heap at end    ${mb(end.heapUsed)} MB${gc ? ' (after gc)' : ''}`);
  console.log(`  processes left ${alive.length === 0 ? 'none' : alive.join(', ')}`);
  const complete = done === REQUESTS && !timedOut;
  const firstRate = TENTH / ((tenths.firstEnd - connected) / 1000);
  const lastRate = TENTH / ((tenths.lastEnd - tenths.lastStart) / 1000);
  const decay = complete ? 1 - lastRate / firstRate : Number.NaN;
  const heapGrowth = tenths.heapAtEnd - tenths.heapAfterFirst;
  console.log(
    `  throughput     (restarts left out) first tenth ${firstRate.toFixed(0)} req/s, last tenth ${complete ? lastRate.toFixed(0) : 'n/a'} req/s (${complete ? `${(-decay * 100).toFixed(1)}%` : 'not finished'}; at most -${MAX_DECAY * 100}%)`,
  );
  console.log(
    `  heap after gc  end of the first tenth ${mb(tenths.heapAfterFirst)} MB, end ${complete ? mb(tenths.heapAtEnd) : 'n/a'} MB (growth at most ${mb(MAX_HEAP_GROWTH)} MB)`,
  );
  if (timedOut) console.log(`  TIMED OUT      after ${MAX_SECONDS} s, ${done} of ${REQUESTS} requests`);
  const ok =
    complete &&
    failures.size === 0 &&
    alive.length === 0 &&
    readies - 1 === RESTARTS &&
    decay <= MAX_DECAY &&
    (gc === undefined || heapGrowth <= MAX_HEAP_GROWTH);
  console.log(`  verdict        ${ok ? 'ok' : 'FAILED'}\n`);
  return { era, ok };
}

const outcomes: EraOutcome[] = [];
for (const era of ERAS) outcomes.push(await soak(era));
process.exitCode = outcomes.every((outcome) => outcome.ok) ? 0 : 1;
