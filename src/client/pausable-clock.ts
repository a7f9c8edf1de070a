import { performance } from 'node:perf_hooks';
import { MAX_TIMER_MS } from '../validate.js';

/** One timeout of a PausableClock. */
export interface PausableTimer {
  /** Stops it for good. */
  clear(): void;
  /** Starts its whole duration again from now. */
  refresh(): void;
}

class ClockTimer implements PausableTimer {
  /** When it fires, in the clock's running time. */
  due: number;
  /** Its neighbours in the clock's list of set timers; undefined once cleared or fired. */
  previous: ClockTimer | undefined;
  next: ClockTimer | undefined;
  set = false;

  constructor(
    readonly clock: PausableClock,
    readonly fire: () => void,
    readonly ms: number,
  ) {
    this.due = clock.now() + ms;
  }

  clear(): void {
    this.clock.forget(this);
  }

  refresh(): void {
    this.clock.reschedule(this);
  }
}

/**
 * One Client's timeouts, which stand still while a person is asked (an OAuth consent: the user may
 * take minutes, and that wait has its own bound) and then run on with the time they had left.
 * Pauses nest: the clock runs again when every pause has ended.
 *
 * One Node timer serves all of them, armed for the earliest deadline, and unref'd rather than
 * cleared when none is left: a caller that sends one request at a time sets and clears no Node
 * timer per request (bench/cpu.ts, "sequential conduit": 39.8 µs of CPU a call against 44.6 µs
 * with a Node timer per timeout; see BENCHMARKS.md, issue 36).
 */
export class PausableClock {
  #pauses = 0;
  /** The set timers, a doubly linked list in the order they were set. */
  #first: ClockTimer | undefined;
  #last: ClockTimer | undefined;
  #handle: NodeJS.Timeout | undefined;
  /** The running time the armed Node timer fires at. */
  #handleDue = Number.POSITIVE_INFINITY;
  /** Time stood still in ended pauses, and when the current one began (performance.now()). */
  #stoodStill = 0;
  #pausedSince = 0;

  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Milliseconds the clock has run: performance.now() less the time it stood still. */
  now(): number {
    const still =
      this.#pauses > 0 ? this.#stoodStill + (performance.now() - this.#pausedSince) : this.#stoodStill;
    return performance.now() - still;
  }

  setTimeout(fire: () => void, ms: number): PausableTimer {
    const timer = new ClockTimer(this, fire, Math.min(ms, MAX_TIMER_MS));
    this.#link(timer);
    if (timer === this.#first) this.#handle?.ref();
    this.#arm(timer.due);
    return timer;
  }

  pause(): void {
    if (this.#pauses++ > 0) return;
    this.#pausedSince = performance.now();
    this.#disarm();
  }

  resume(): void {
    if (this.#pauses === 0 || --this.#pauses > 0) return;
    this.#stoodStill += performance.now() - this.#pausedSince;
    this.#arm(this.#earliest());
  }

  /** For ClockTimer.clear. */
  forget(timer: ClockTimer): void {
    if (!timer.set) return;
    this.#unlink(timer);
    // The Node timer stays armed (no timer is set and cleared per request of a sequential caller)
    // but no longer holds the process open; when it fires with nothing due, it ends.
    if (this.#first === undefined) this.#handle?.unref();
  }

  /** For ClockTimer.refresh. */
  reschedule(timer: ClockTimer): void {
    if (!timer.set) return;
    timer.due = this.now() + timer.ms;
    this.#arm(timer.due);
  }

  /** Makes sure the Node timer fires by `due` (a later-armed one is replaced; an earlier one rescans). */
  #arm(due: number): void {
    if (this.#pauses > 0 || due >= this.#handleDue) return;
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handleDue = due;
    this.#handle = setTimeout(this.#onDue, Math.max(1, Math.ceil(due - this.now())));
  }

  #disarm(): void {
    if (this.#handle === undefined) return;
    clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#handleDue = Number.POSITIVE_INFINITY;
  }

  #link(timer: ClockTimer): void {
    timer.set = true;
    timer.previous = this.#last;
    if (this.#last) this.#last.next = timer;
    else this.#first = timer;
    this.#last = timer;
  }

  #unlink(timer: ClockTimer): void {
    timer.set = false;
    if (timer.previous) timer.previous.next = timer.next;
    else this.#first = timer.next;
    if (timer.next) timer.next.previous = timer.previous;
    else this.#last = timer.previous;
    timer.previous = timer.next = undefined;
  }

  #earliest(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (let timer = this.#first; timer; timer = timer.next) if (timer.due < earliest) earliest = timer.due;
    return earliest;
  }

  readonly #onDue = (): void => {
    this.#handle = undefined;
    this.#handleDue = Number.POSITIVE_INFINITY;
    const now = this.now();
    const due: ClockTimer[] = [];
    for (let timer = this.#first; timer; timer = timer.next) if (timer.due <= now) due.push(timer);
    for (const timer of due) this.#unlink(timer);
    this.#arm(this.#earliest());
    due.sort((a, b) => a.due - b.due);
    for (const timer of due) timer.fire();
  };
}
