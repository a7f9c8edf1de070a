// Chaos: chaos.mjs picks a misbehaviour at each start from a seed, while the client issues a
// stream of concurrent requests with random timeouts and aborts (from the same seed). After each
// run: every request settled with a result or a typed error, no process of any server group is
// alive after close, nothing unasked was written, and the heap came back near where it started.
// Reproduce a run with CHAOS_SEED=<seed> node scripts/run-tests.mjs reliability/chaos
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '../../src/index.js';
import { nodeServer, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import {
  assertGroupsGone,
  assertOnlyAsked,
  assertTyped,
  forcedGc,
  perConnection,
  seededRandom,
  settledHeap,
  settleWithin,
  spawnedPids,
  track,
} from '../helpers/reliability.js';

guardProcesses();

/** Seeds whose first starts cover big, exit, stubborn, slow, silent-probe, stall, a crash loop, dead, cancel. */
const FIXED_SEEDS = [2, 6, 14, 16, 22, 11];
const REQUESTS = 120;
const MAX_TIMEOUT = 1200;
const directory = temporaryDirectory();

const seeds = process.env.CHAOS_SEED
  ? [Number(process.env.CHAOS_SEED)]
  : [...FIXED_SEEDS, Math.floor(Math.random() * 2 ** 31)];

interface Run {
  counts: Record<string, number>;
  behaviours: string[];
  pids: number[];
}

async function chaosRun(seed: number): Promise<Run> {
  const random = seededRandom(seed);
  const state = path.join(directory, `state-${seed}.jsonl`);
  const record = stdinRecord();
  const spawned = spawnedPids();
  const client = new Client({
    name: `chaos-${seed}`,
    transport: {
      type: 'stdio',
      ...nodeServer('chaos.mjs', ['--seed', String(seed), '--state', state, '--record', record.file], {
        stdinGrace: 150,
        termGrace: 150,
        stderr: 'discard',
        maxMessageBytes: 64 * 1024,
        maxJunkLines: 5,
      }),
    },
    probeTimeout: 300,
    requestTimeout: MAX_TIMEOUT,
    reconnect: { maxReconnects: 3, initialDelay: 10, maxDelay: 100, jitter: 0.5, resetAfter: 300 },
  });
  const requests: Promise<unknown>[] = [track(client.connect())];
  const labels = ['connect'];
  const shared = new AbortController();
  const sharedAbortAt = Math.floor(random() * REQUESTS);
  // One run in four closes the client in the middle of the stream.
  const closeAt = random() < 0.25 ? Math.floor(random() * REQUESTS) : -1;
  for (let n = 0; n < REQUESTS; n++) {
    if (n === sharedAbortAt) shared.abort(new Error('shared abort'));
    if (n === closeAt) void client.close();
    const roll = random();
    const [method, params] =
      roll < 0.5
        ? ['tools/call', { name: 'echo', arguments: { n } }]
        : roll < 0.75
          ? ['tools/call', { name: 'slow', arguments: { ms: Math.floor(random() * 400) } }]
          : roll < 0.85
            ? ['ping', undefined]
            : roll < 0.95
              ? ['tools/list', {}]
              : ['no/such/method', {}];
    const timeout = random() < 0.3 ? undefined : 20 + Math.floor(random() * (MAX_TIMEOUT - 20));
    const abortRoll = random();
    let signal: AbortSignal | undefined;
    if (abortRoll < 0.25) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('gave up')), random() * 600);
      signal = controller.signal;
    } else if (abortRoll < 0.3) {
      signal = AbortSignal.abort(new Error('already aborted'));
    } else if (abortRoll < 0.4) {
      signal = shared.signal;
    }
    requests.push(track(client.request(method, params, { timeout, signal })));
    labels.push(`${method} ${JSON.stringify(params)} timeout ${timeout}`);
    await sleep(random() * 8);
  }
  // Each request's own timeout (at most MAX_TIMEOUT) bounds it, reconnection waits included.
  const outcomes = await settleWithin(requests, MAX_TIMEOUT + 4000, labels);
  const counts = assertTyped(outcomes.slice(1));
  await client.close();
  spawned.stop();
  await assertGroupsGone(spawned.pids);
  for (const recorded of perConnection(record.read())) assertOnlyAsked(recorded);
  const behaviours = readFileSync(state, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { behaviour: string }).behaviour);
  return { counts, behaviours, pids: spawned.pids };
}

test('chaos: seeded misbehaving servers under a stream of requests with random timeouts and aborts', async (t) => {
  const gc = forcedGc();
  t.diagnostic(`seeds ${seeds.join(', ')} (gc ${gc ? 'forced' : 'not available'})`);
  await chaosRun(1); // warm up the modules and code paths, so the heap check below sees only a run
  for (const seed of seeds) {
    await t.test(`seed ${seed}`, async (t) => {
      const heapBefore = await settledHeap();
      const run = await chaosRun(seed);
      // The client, its transports and every request are garbage now.
      const heapAfter = await settledHeap();
      const growth = heapAfter - heapBefore;
      t.diagnostic(
        `seed ${seed}: starts ${run.behaviours.join(' -> ')}; outcomes ${JSON.stringify(run.counts)}; heap ${(growth / 1024).toFixed(0)} KiB`,
      );
      const margin = gc ? 3 * 1024 * 1024 : 64 * 1024 * 1024;
      assert.ok(growth < margin, `the heap grew by ${growth} bytes over the run (seed ${seed})`);
    });
  }
});
