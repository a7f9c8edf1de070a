// Chaos: chaos.mjs picks a misbehaviour at each start from a seed, while the client issues a
// stream of concurrent requests with random timeouts and aborts (from the same seed). After each
// run: every request settled with a result or a typed error, no process of any server group is
// alive after close, nothing unasked was written, and the heap came back near where it started.
// Reproduce a run with CHAOS_SEED=<seed> node scripts/run-tests.mjs reliability/chaos
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { Client, Secret } from '../../src/index.js';
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
import { captureUncaught, UserCallbackError } from '../helpers/user-errors.js';

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

/** Resolves once the first server of a run has written its pick to `state`, or after 5 s. */
async function firstStart(state: string): Promise<void> {
  for (let i = 0; i < 500 && !existsSync(state); i++) await sleep(10);
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
  // Cleared once the run is over: pending, they would keep the run (its client) alive past the heap check.
  const abortTimers: NodeJS.Timeout[] = [];
  for (let n = 0; n < REQUESTS; n++) {
    if (n === sharedAbortAt) shared.abort(new Error('shared abort'));
    // Not before a server has picked its behaviour: on a loaded machine node can take longer to
    // start than the stream takes to reach closeAt, and the seed would then cover nothing.
    if (n === closeAt) void firstStart(state).then(() => client.close());
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
      abortTimers.push(setTimeout(() => controller.abort(new Error('gave up')), random() * 600));
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
  for (const timer of abortTimers) clearTimeout(timer);
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

const USER_EVENTS = [
  'ready',
  'disconnected',
  'reconnecting',
  'closed',
  'notification',
  'log',
  'warning',
] as const;
type Misbehaviour = 'throw' | 'reject' | 'hang' | 'calm';
const misbehaviour = fc.constantFrom<Misbehaviour>('throw', 'reject', 'hang', 'calm');
const SECRET_VALUE = 'chaos-secret-9f2c71';

/** User code that, on a random share of its calls, throws, rejects or never settles. */
function userCallback<T>(kind: Misbehaviour, where: string, random: () => number, value: () => T) {
  return (): T | Promise<T> => {
    if (kind === 'calm' || random() < 0.3) return value();
    if (kind === 'throw') throw new UserCallbackError(where);
    if (kind === 'reject') return Promise.reject(new UserCallbackError(where));
    return new Promise<T>(() => {});
  };
}

interface CallbackPlan {
  seed: number;
  listeners: Array<[(typeof USER_EVENTS)[number], Misbehaviour]>;
  onProgress: Misbehaviour;
  roots: Misbehaviour;
}

async function userCodeChaosRun(plan: CallbackPlan): Promise<void> {
  const random = seededRandom(plan.seed);
  const state = path.join(directory, `user-state-${plan.seed}-${process.hrtime.bigint()}.jsonl`);
  const record = stdinRecord();
  const spawned = spawnedPids();
  const client = new Client({
    name: `user-chaos-${plan.seed}`,
    transport: {
      type: 'stdio',
      ...nodeServer('chaos.mjs', ['--seed', String(plan.seed), '--state', state, '--record', record.file], {
        stdinGrace: 150,
        termGrace: 150,
        stderr: 'discard',
        maxMessageBytes: 64 * 1024,
        maxJunkLines: 5,
        env: { TOKEN: new Secret(() => SECRET_VALUE) },
      }),
    },
    probeTimeout: 300,
    requestTimeout: MAX_TIMEOUT,
    connectTimeout: 3000,
    reconnect: { maxReconnects: 3, initialDelay: 10, maxDelay: 100, jitter: 0.5, resetAfter: 300 },
    handlers: { roots: userCallback(plan.roots, 'a roots handler', random, () => ({ roots: [] })) as never },
  });
  for (const [event, kind] of plan.listeners) {
    client.on(
      event,
      userCallback(kind, `a '${event}' listener`, random, () => undefined),
    );
  }
  const requests: Promise<unknown>[] = [track(client.connect())];
  const labels = ['connect'];
  for (let n = 0; n < USER_REQUESTS; n++) {
    const roll = random();
    const [method, params] =
      roll < 0.4
        ? ['tools/call', { name: 'echo', arguments: { n } }]
        : roll < 0.7
          ? ['tools/call', { name: 'slow', arguments: { ms: Math.floor(random() * 300) } }]
          : roll < 0.9
            ? ['tools/call', { name: 'ask' }]
            : ['ping', undefined];
    const timeout = 20 + Math.floor(random() * (MAX_TIMEOUT - 20));
    const onProgress = userCallback(plan.onProgress, 'onProgress', random, () => undefined);
    requests.push(track(client.request(method, params, { timeout, onProgress })));
    labels.push(`${method} ${JSON.stringify(params)} timeout ${timeout}`);
    await sleep(random() * 10);
  }
  // 1. Every request settles, with a result or a typed error, whatever the callbacks did.
  const outcomes = await settleWithin(requests, MAX_TIMEOUT + 5000, labels);
  assertTyped(outcomes.slice(1));
  await client.close();
  spawned.stop();
  // 2. No orphans.
  await assertGroupsGone(spawned.pids);
  // 3. Nothing unasked: responses only to the roots/list requests the server sent.
  for (const recorded of perConnection(record.read())) {
    const serverRequestIds = recorded.flatMap((message) =>
      message.method === 'tools/call' && (message.params as { name?: string }).name === 'ask'
        ? [`ask-${String(message.id)}`]
        : [],
    );
    assertOnlyAsked(recorded, { serverRequestIds });
  }
  // 5. No secret leaks, in any outcome.
  for (const outcome of outcomes) {
    const shown = inspect(outcome, { depth: 8, showHidden: true });
    assert.ok(!shown.includes(SECRET_VALUE), `the Secret leaked: ${shown.slice(0, 500)}`);
  }
}

const USER_REQUESTS = 50;

test('chaos property: user callbacks that throw, reject or hang at random points while the server crashes and restarts leave the five invariants intact', async (t) => {
  const gc = forcedGc();
  const captured = captureUncaught({ keep: false });
  let runs = 0;
  try {
    await userCodeChaosRun({ seed: 1, listeners: [], onProgress: 'calm', roots: 'calm' }); // warm up
    const heapBefore = await settledHeap();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          listeners: fc.array(fc.tuple(fc.constantFrom(...USER_EVENTS), misbehaviour), {
            minLength: 3,
            maxLength: 12,
          }),
          onProgress: misbehaviour,
          roots: misbehaviour,
        }),
        async (plan) => {
          runs++;
          await userCodeChaosRun(plan);
        },
      ),
      { numRuns: Number(process.env.CHAOS_USER_RUNS ?? 5), endOnFailure: true },
    );
    // 4. Memory stays bounded: hanging callbacks hold nothing of the clients once they are closed.
    const growth = (await settledHeap()) - heapBefore;
    t.diagnostic(
      `${runs} runs; heap ${(growth / 1024).toFixed(0)} KiB (gc ${gc ? 'forced' : 'not available'})`,
    );
    assert.ok(growth < (gc ? 3 : 64) * 1024 * 1024, `the heap grew by ${growth} bytes over the runs`);
  } finally {
    // Only the user callbacks' own errors were re-thrown; nothing of the library's escaped.
    captured.stop();
    t.diagnostic(`${captured.count} user errors re-thrown on a later tick`);
  }
});
