import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PausableClock } from '../../src/client/pausable-clock.js';

/**
 * How early a Node timer may fire by performance.now(): timers run on the event loop's cached
 * millisecond clock. A clock that did not stand still would be early by the whole pause.
 */
const TIMER_SLACK = 5;

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const started = Date.now(); !done(); await sleep(10)) {
    if (Date.now() - started > ms) assert.fail(`timed out waiting for ${what}`);
  }
}

function recorder() {
  const clock = new PausableClock();
  const firedAt = new Map<string, number>();
  const mark = (name: string) => () => firedAt.set(name, performance.now());
  return { clock, firedAt, mark };
}

test('timers fire in order of their lengths, each after its own length', async () => {
  const { clock, firedAt, mark } = recorder();
  const started = performance.now();
  clock.setTimeout(mark('a'), 150);
  clock.setTimeout(mark('b'), 50);
  await sleep(20);
  const cStarted = performance.now();
  clock.setTimeout(mark('c'), 150);
  await until(() => firedAt.size === 3, 'three timers');
  assert.deepEqual([...firedAt.keys()], ['b', 'a', 'c']);
  assert.ok(firedAt.get('b')! - started >= 50 - TIMER_SLACK);
  assert.ok(firedAt.get('a')! - started >= 150 - TIMER_SLACK);
  assert.ok(firedAt.get('c')! - cStarted >= 150 - TIMER_SLACK);
});

test('a cleared timer never fires; a refreshed one waits its whole length again from the refresh', async () => {
  const { clock, firedAt, mark } = recorder();
  const cleared = clock.setTimeout(mark('cleared'), 40);
  const refreshed = clock.setTimeout(mark('refreshed'), 120);
  cleared.clear();
  await sleep(60);
  const refreshedAt = performance.now();
  refreshed.refresh();
  await until(() => firedAt.has('refreshed'), 'the refreshed timer');
  assert.ok(firedAt.get('refreshed')! - refreshedAt >= 120 - TIMER_SLACK);
  await sleep(30);
  assert.deepEqual([...firedAt.keys()], ['refreshed']);
  refreshed.refresh(); // after it fired: nothing
  refreshed.clear();
  await sleep(150);
  assert.equal(firedAt.size, 1);
});

test('time stands still while the clock is paused (nested pauses too) and runs on with what was left', async () => {
  const { clock, firedAt, mark } = recorder();
  const started = performance.now();
  clock.setTimeout(mark('e'), 1000);
  await sleep(50);
  clock.pause();
  const ranBeforePause = performance.now() - started;
  clock.pause();
  assert.equal(clock.paused, true);
  await sleep(1100); // past the wall-clock deadline
  assert.equal(firedAt.size, 0, 'fired while paused');
  clock.resume();
  assert.equal(clock.paused, true, 'one of two pauses ended: still paused');
  await sleep(50);
  assert.equal(firedAt.size, 0, 'fired while still paused');
  const resumedAt = performance.now();
  clock.resume();
  clock.resume(); // more resumes than pauses: nothing
  assert.equal(clock.paused, false);
  await until(() => firedAt.size === 1, 'the timer after resume');
  const left = 1000 - ranBeforePause;
  const after = firedAt.get('e')! - resumedAt;
  assert.ok(after >= left - TIMER_SLACK, `fired ${after} ms after resume, ${left} were left`);
});

test('a timer set while paused starts counting on resume; refresh while paused gives the whole length after resume; clear while paused', async () => {
  const { clock, firedAt, mark } = recorder();
  const refreshed = clock.setTimeout(mark('refreshed'), 100);
  const cleared = clock.setTimeout(mark('cleared'), 30);
  clock.pause();
  clock.setTimeout(mark('added'), 60);
  await sleep(200); // every one of them came due by the wall clock
  refreshed.refresh();
  cleared.clear();
  assert.equal(firedAt.size, 0);
  const resumedAt = performance.now();
  clock.resume();
  await until(() => firedAt.size === 2, 'both timers after resume');
  await sleep(60);
  assert.deepEqual([...firedAt.keys()], ['added', 'refreshed']);
  assert.ok(firedAt.get('added')! - resumedAt >= 60 - TIMER_SLACK);
  assert.ok(firedAt.get('refreshed')! - resumedAt >= 100 - TIMER_SLACK);
});

test('two clocks: a pause of one holds its timers only; the other fires on time', async () => {
  const paused = recorder();
  const running = recorder();
  const started = performance.now();
  paused.clock.setTimeout(paused.mark('held'), 160);
  running.clock.setTimeout(running.mark('on time'), 160);
  await sleep(50);
  paused.clock.pause();
  await until(() => running.firedAt.size === 1, 'the running clock’s timer');
  assert.ok(running.firedAt.get('on time')! - started >= 160 - TIMER_SLACK);
  await sleep(150);
  assert.equal(paused.firedAt.size, 0);
  paused.clock.resume();
  await until(() => paused.firedAt.size === 1, 'the paused clock’s timer');
});

test('a length past what a Node timer holds waits, rather than firing at once', async () => {
  const { clock, firedAt, mark } = recorder();
  const timer = clock.setTimeout(mark('long'), Number.MAX_SAFE_INTEGER);
  await sleep(50);
  assert.equal(firedAt.size, 0);
  timer.clear();
});

test('now() is the running time: it does not advance while paused', async () => {
  const clock = new PausableClock();
  const start = clock.now();
  clock.pause();
  await sleep(150);
  const during = clock.now() - start;
  clock.resume();
  await sleep(50);
  const after = clock.now() - start;
  assert.ok(during < 20, `advanced ${during} ms while paused`);
  assert.ok(after >= 45 - TIMER_SLACK && after < 140, `ran ${after} ms, 50 of them unpaused`);
});
