// Shared checks for the reliability suites: every request settles, no process survives, nothing
// unasked is written to a server, and memory comes back.
import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isConduitError } from '../../src/errors.js';
import { liveGroupMembers } from '../../src/transport/stdio/process-group.js';
import { waitGroupGone } from './processes.js';

/** Marks a promise as handled now (its rejection is checked later), and returns it. */
export function track<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

export type Outcome = { status: 'fulfilled'; value: unknown } | { status: 'rejected'; reason: unknown };

/**
 * Waits until every promise has settled, failing (with the indices and labels of those still
 * pending) if any has not after `ms`.
 */
export async function settleWithin(
  promises: readonly Promise<unknown>[],
  ms: number,
  labels: readonly string[] = [],
): Promise<Outcome[]> {
  const outcomes: Array<Outcome | undefined> = promises.map(() => undefined);
  const all = Promise.all(
    promises.map((promise, index) =>
      promise.then(
        (value) => {
          outcomes[index] = { status: 'fulfilled', value };
        },
        (reason: unknown) => {
          outcomes[index] = { status: 'rejected', reason };
        },
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), ms);
  });
  const first = await Promise.race([all, expired]);
  clearTimeout(timer);
  if (first === 'expired') {
    const pending = outcomes.flatMap((outcome, index) =>
      outcome === undefined ? [`#${index}${labels[index] ? ` ${labels[index]}` : ''}`] : [],
    );
    assert.fail(
      `${pending.length} of ${promises.length} requests still pending after ${ms} ms: ${pending.join(', ')}`,
    );
  }
  return outcomes as Outcome[];
}

/** Asserts every rejection is one of this library's typed errors; returns the count per kind. */
export function assertTyped(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    let kind = 'result';
    if (outcome.status === 'rejected') {
      const reason = outcome.reason;
      assert.ok(isConduitError(reason), `an untyped rejection: ${String(reason)}`);
      kind = reason.name;
    }
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/** The pids (= process groups) of every server spawned while `run` is subscribed. */
export function spawnedPids(): { pids: number[]; stop: () => void } {
  const pids: number[] = [];
  const onSpawn = (message: unknown) => {
    pids.push((message as { pid: number }).pid);
  };
  dc.subscribe('conduit-mcp:transport:spawn', onSpawn);
  return { pids, stop: () => dc.unsubscribe('conduit-mcp:transport:spawn', onSpawn) };
}

/** Asserts that no process of any of these groups runs within `ms`. */
export async function assertGroupsGone(pgids: readonly number[], ms = 5000): Promise<void> {
  for (const pgid of pgids) {
    const gone = await waitGroupGone(pgid, ms);
    assert.ok(gone, `process group ${pgid} still runs: pids ${liveGroupMembers(pgid).join(', ')}`);
  }
}

let gcFunction: (() => void) | undefined | null = null;

/**
 * A full garbage collection, if one can be had: `--expose-gc`, or the V8 flag set at run time.
 * Undefined when neither works (then callers allow a generous margin).
 */
export function forcedGc(): (() => void) | undefined {
  if (gcFunction !== null) return gcFunction;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    gcFunction = exposed;
    return gcFunction;
  }
  try {
    setFlagsFromString('--expose-gc');
    const fromContext = runInNewContext('gc') as unknown;
    gcFunction = typeof fromContext === 'function' ? (fromContext as () => void) : undefined;
  } catch {
    gcFunction = undefined;
  }
  return gcFunction;
}

/** heapUsed after a few forced collections (or as it is, without gc). */
export async function settledHeap(): Promise<number> {
  const gc = forcedGc();
  if (gc) {
    for (let round = 0; round < 3; round++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return process.memoryUsage().heapUsed;
}

export type Recorded = Record<string, unknown>;

export interface WireSummary {
  /** The client's requests, by id. */
  requests: Map<unknown, Recorded>;
  /** The ids named by notifications/cancelled, in order. */
  cancelled: unknown[];
  /** The ids the client answered. */
  responses: unknown[];
}

/**
 * Asserts that the client wrote only what a server may expect: requests with fresh ids, at most
 * one `notifications/initialized` (after `initialize`), at most one cancellation per request and
 * only of its own requests, and responses only to the ids in `serverRequestIds`, once each.
 */
export function assertOnlyAsked(
  recorded: readonly Recorded[],
  options: { serverRequestIds?: readonly unknown[]; allowedMethods?: readonly string[] } = {},
): WireSummary {
  const serverRequestIds = new Set(options.serverRequestIds ?? []);
  const summary: WireSummary = { requests: new Map(), cancelled: [], responses: [] };
  let initialized = 0;
  for (const message of recorded) {
    const shown = JSON.stringify(message);
    assert.equal(message.jsonrpc, '2.0', shown);
    if (typeof message.method === 'string') {
      if ('id' in message) {
        assert.ok(!summary.requests.has(message.id), `request id ${String(message.id)} reused: ${shown}`);
        if (options.allowedMethods) {
          assert.ok(options.allowedMethods.includes(message.method), `unexpected request ${shown}`);
        }
        summary.requests.set(message.id, message);
        continue;
      }
      if (message.method === 'notifications/initialized') {
        initialized++;
        assert.ok(
          [...summary.requests.values()].some((request) => request.method === 'initialize'),
          'notifications/initialized before initialize',
        );
        continue;
      }
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        assert.ok(summary.requests.has(id), `cancelled a request it never sent: ${shown}`);
        assert.ok(!summary.cancelled.includes(id), `cancelled twice: ${shown}`);
        const method = summary.requests.get(id)?.method;
        assert.ok(
          method !== 'initialize' && method !== 'server/discover',
          `cancelled the handshake: ${shown}`,
        );
        summary.cancelled.push(id);
        continue;
      }
      assert.fail(`an unexpected notification: ${shown}`);
    }
    // A response: only to a request the server sent, once.
    assert.ok(serverRequestIds.has(message.id), `a response nobody asked for: ${shown}`);
    assert.ok(!summary.responses.includes(message.id), `answered twice: ${shown}`);
    summary.responses.push(message.id);
  }
  assert.ok(initialized <= 1, `notifications/initialized sent ${initialized} times`);
  return summary;
}

/**
 * One record file shared by the processes of a restarting client, cut into one list per
 * connection: each connection's first request has id 1.
 */
export function perConnection(recorded: readonly Recorded[]): Recorded[][] {
  const connections: Recorded[][] = [];
  for (const message of recorded) {
    if (message.id === 1 && typeof message.method === 'string') connections.push([]);
    if (connections.length === 0) connections.push([]);
    connections.at(-1)!.push(message);
  }
  return connections;
}

export { seededRandom } from './seeded-random.mjs';
