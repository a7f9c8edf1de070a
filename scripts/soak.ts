// Soak: many requests and many server restarts through one Client, reporting RSS over time.
//
//   npm run soak                                      # 1,000,000 requests, 1,000 restarts
//   npm run soak -- --requests 20000 --restarts 20    # a short run
//
// Options (or the environment variables in brackets):
//   --requests N     requests in all [SOAK_REQUESTS] (default 1000000)
//   --restarts N     server restarts, spread evenly: the server crashes, the client restarts it [SOAK_RESTARTS] (default 1000)
//   --concurrency N  requests in flight at once [SOAK_CONCURRENCY] (default 32)
//   --every N        print a line every N requests [SOAK_EVERY] (default requests / 20)
//
// The server is test/fixtures/servers/mcp.mjs (legacy era). Each request is a tools/call of `echo`
// whose answer is checked. Exits with status 1 if a request failed, a result was wrong, or a server
// process outlived the client.
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

const client = new Client({
  name: 'soak',
  transport: {
    type: 'stdio',
    command: process.execPath,
    args: [path.resolve(import.meta.dirname, '../test/fixtures/servers/mcp.mjs'), '--era', 'legacy'],
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
    while (next < count) {
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
      if (done % EVERY === 0) report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

/** Crashes the server and waits until the client has restarted it. */
async function restart(): Promise<void> {
  const ready = once(client, 'ready');
  await client.callTool({ name: 'crash', arguments: { code: 1 } }).then(
    () => fail('crash answered'),
    () => {},
  );
  await ready;
}

console.log(
  `soak: ${REQUESTS} requests, ${RESTARTS} restarts, ${CONCURRENCY} in flight, a line every ${EVERY} requests (gc ${gc ? 'available' : 'not available'})`,
);
await client.connect();
report();
const baseline = { rss: process.memoryUsage().rss };
for (let part = 0; part <= RESTARTS; part++) {
  // Part p ends at floor(REQUESTS * (p + 1) / (RESTARTS + 1)) requests.
  const end = Math.floor((REQUESTS * (part + 1)) / (RESTARTS + 1));
  await segment(end - done);
  if (part < RESTARTS) await restart();
}
if (done % EVERY !== 0) report();
const elapsed = (performance.now() - started) / 1000;
await client.close();

// Every server process (and its group) must be gone.
const deadline = Date.now() + 10_000;
let alive = pids.filter((pid) => !groupIsEmpty(pid));
while (alive.length > 0 && Date.now() < deadline) {
  await sleep(50);
  alive = alive.filter((pid) => !groupIsEmpty(pid));
}
gc?.();
gc?.();
const end = process.memoryUsage();
report(true);

const rssValues = samples.map((sample) => sample.rss);
const secondHalf = samples.slice(Math.floor(samples.length / 2));
console.log('\nsummary');
console.log(`  requests       ${done} in ${elapsed.toFixed(1)} s (${(done / elapsed).toFixed(0)} req/s)`);
console.log(`  restarts       ${readies - 1} (servers spawned: ${pids.length})`);
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
process.exitCode = failures.size === 0 && alive.length === 0 && readies - 1 === RESTARTS ? 0 : 1;
