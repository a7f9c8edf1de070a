import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PausableClock } from '../../src/client/pausable-clock.js';
import { waitFor } from '../../src/client/wait.js';

const never = () => new Promise<never>(() => {});
const timedOut = () => 'timed out' as const;

test('waitFor settles as the promise does when it comes first, and leaves no listener behind', async () => {
  const controller = new AbortController();
  let listeners = 0;
  const { signal } = controller;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  };
  assert.equal(await waitFor(Promise.resolve(1), { timeout: 1000, signal, onTimeout: timedOut }), 1);
  await assert.rejects(
    waitFor(Promise.reject(new Error('boom')), { timeout: 1000, signal, onTimeout: timedOut }),
    /boom/,
  );
  assert.equal(listeners, 0);
});

test('waitFor past the timeout: what onTimeout returns resolves it, what it throws rejects it', async () => {
  assert.equal(await waitFor(never(), { timeout: 10, onTimeout: timedOut }), 'timed out');
  await assert.rejects(
    waitFor(never(), {
      timeout: 10,
      onTimeout: () => {
        throw new Error('too late');
      },
    }),
    /too late/,
  );
  assert.equal(await waitFor(undefined, { timeout: 10, onTimeout: timedOut }), 'timed out');
});

test('waitFor on abort, before or during the wait: the reason by default, else onAbort', async () => {
  const before = new AbortController();
  before.abort(new Error('already'));
  await assert.rejects(
    waitFor(never(), { timeout: 1000, signal: before.signal, onTimeout: timedOut }),
    /already/,
  );
  const during = new AbortController();
  const waiting = waitFor(never(), {
    timeout: Number.POSITIVE_INFINITY,
    signal: during.signal,
    onTimeout: timedOut,
    onAbort: (reason) => `aborted: ${String(reason)}`,
  });
  during.abort('stop');
  assert.equal(await waiting, 'aborted: stop');
});

test('waitFor on a PausableClock: the timeout stands still while the clock is paused', async () => {
  const clock = new PausableClock();
  let settled = false;
  const waiting = waitFor(never(), { clock, timeout: 50, onTimeout: timedOut }).then((value) => {
    settled = true;
    return value;
  });
  clock.pause();
  await sleep(150);
  assert.equal(settled, false);
  clock.resume();
  assert.equal(await waiting, 'timed out');
});
