import type { PausableClock, PausableTimer } from './pausable-clock.js';

/**
 * The timeouts of one Connection's pending requests. Each request holds its deadlines as numbers
 * (the clock's running time) and one clock timer is armed for the earliest: a timer object per
 * request cost 2.2 µs of CPU a call at 256 in flight (bench/cpu.ts, "in-flight conduit": 135,000
 * calls/s against 160,000 without timeouts; see BENCHMARKS.md, issue 36).
 */
export class RequestDeadlines {
  readonly #clock: PausableClock;
  /** Times out every request due by `now`; returns the earliest deadline of those left. */
  readonly #expire: (now: number) => number;
  #timer: PausableTimer | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  constructor(clock: PausableClock, expire: (now: number) => number) {
    this.#clock = clock;
    this.#expire = expire;
  }

  /** The clock's running time, in which deadlines are written. */
  now(): number {
    return this.#clock.now();
  }

  /** A request waits until `due`: the timer fires by then (a later one is checked when it fires). */
  watch(due: number): void {
    if (due >= this.#armedFor) return;
    this.#timer?.clear();
    this.#armedFor = due;
    this.#timer = this.#clock.setTimeout(this.#fire, Math.max(0, due - this.#clock.now()));
  }

  /** No request waits any more. */
  idle(): void {
    this.#timer?.clear();
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const next = this.#expire(this.#clock.now());
    if (next < Number.POSITIVE_INFINITY) this.watch(next);
  };
}
