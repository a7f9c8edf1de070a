import { performance } from 'node:perf_hooks';
import type { PausableClock, Resumable } from './pausable-clock.js';

/** What Deadlines keeps of an entry, on the entry itself (no object of its own per entry). */
export interface DeadlineEntry {
  /** performance.now() at which it is due, unless its clock stands still meanwhile. */
  deadline: number;
  /** Its clock's stoodStill() when `deadline` was set. */
  deadlineStill: number;
  deadlinePrev: DeadlineEntry | undefined;
  deadlineNext: DeadlineEntry | undefined;
  /** The lane it waits in; undefined once due, removed, or held by a paused clock. */
  deadlineLane: Lane | undefined;
  deadlineOwner: Deadlines<DeadlineEntry> | undefined;
}

/** setTimeout's ceiling. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Lanes of this process, by length. Past this many, a lane that empties is dropped at once. */
const KEPT_LANES = 8;
const lanes = new Map<number, Lane>();

/**
 * Timeouts of many entries (a connection's requests) on a PausableClock. Entries of one length,
 * from every connection of the process, wait in one lane in the order they are due, under one
 * Node timer set for the first: adding, removing and restarting an entry allocate nothing, and an
 * idle connection holds no timer. A lane going from empty to busy refs its timer, and back unrefs
 * it (an idle lane never keeps the process alive). An entry whose clock stood still while it
 * waited is, when it comes due, moved on by that time; due while its clock is paused, it is held
 * until the clock runs again.
 */
export class Deadlines<T extends DeadlineEntry> implements Resumable {
  readonly clock: PausableClock;
  readonly #expire: (entry: T) => void;
  /** Entries that came due while the clock was paused, with the running time they still have. */
  #held: Map<T, { lane: Lane; left: number }> | undefined;

  constructor(clock: PausableClock, expire: (entry: T) => void) {
    this.clock = clock;
    this.#expire = expire;
  }

  /** Due after `ms` of the clock's running time. */
  add(entry: T, ms: number): void {
    let lane = lanes.get(ms);
    if (!lane) {
      lane = new Lane(ms);
      lanes.set(ms, lane);
    }
    entry.deadlineOwner = this as unknown as Deadlines<DeadlineEntry>;
    lane.append(entry, performance.now() + ms, this.clock.stoodStill());
  }

  /** Stops waiting for it (nothing if it is not waiting). */
  remove(entry: T): void {
    const lane = entry.deadlineLane;
    if (lane) lane.remove(entry);
    else if (this.#held?.delete(entry) && this.#held.size === 0) this.clock.release(this);
  }

  /** Starts its whole length again from now (nothing if it is not waiting). */
  restart(entry: T): void {
    const lane = entry.deadlineLane;
    if (lane) {
      lane.remove(entry);
      this.add(entry, lane.ms);
      return;
    }
    const held = this.#held?.get(entry);
    if (held) held.left = held.lane.ms;
  }

  /** Called by its lane when the entry's time is up by the wall clock. */
  due(entry: T, lane: Lane, now: number): void {
    const owed = this.clock.stoodStill() - entry.deadlineStill;
    // The running time it still has: what the pauses took from its wait, less any lateness.
    const left = owed - (now - entry.deadline);
    if (owed <= 0 || left <= 0) {
      entry.deadlineOwner = undefined;
      this.#expire(entry);
    } else if (this.clock.paused) {
      if (this.#held === undefined || this.#held.size === 0) this.clock.hold(this);
      this.#held ??= new Map();
      this.#held.set(entry, { lane, left });
    } else {
      lane.insert(entry, now + left, this.clock.stoodStill());
    }
  }

  resumeHeld(): void {
    const held = this.#held;
    this.#held = undefined;
    if (!held) return;
    const now = performance.now();
    const still = this.clock.stoodStill();
    for (const [entry, { lane, left }] of held) lane.insert(entry, now + left, still);
  }
}

/** The entries of one length, due in order, and the one timer that watches the first. */
class Lane {
  head: DeadlineEntry | undefined;
  tail: DeadlineEntry | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() at which #timer fires. */
  #timerAt = 0;

  constructor(readonly ms: number) {}

  /** Adds an entry due after every other (its deadline is now + this length). */
  append(entry: DeadlineEntry, deadline: number, still: number): void {
    entry.deadline = deadline;
    entry.deadlineStill = still;
    entry.deadlineLane = this;
    entry.deadlinePrev = this.tail;
    entry.deadlineNext = undefined;
    if (this.tail) this.tail.deadlineNext = entry;
    else this.head = entry;
    this.tail = entry;
    if (entry === this.head) this.#wake(deadline);
  }

  /** Adds an entry at its place in deadline order (one moved on after its clock stood still). */
  insert(entry: DeadlineEntry, deadline: number, still: number): void {
    let before = this.tail;
    while (before && before.deadline > deadline) before = before.deadlinePrev;
    entry.deadline = deadline;
    entry.deadlineStill = still;
    entry.deadlineLane = this;
    entry.deadlinePrev = before;
    entry.deadlineNext = before ? before.deadlineNext : this.head;
    if (entry.deadlineNext) entry.deadlineNext.deadlinePrev = entry;
    else this.tail = entry;
    if (before) before.deadlineNext = entry;
    else this.head = entry;
    if (entry === this.head) this.#wake(deadline);
  }

  remove(entry: DeadlineEntry): void {
    const { deadlinePrev: prev, deadlineNext: next } = entry;
    if (prev) prev.deadlineNext = next;
    else this.head = next;
    if (next) next.deadlinePrev = prev;
    else this.tail = prev;
    entry.deadlinePrev = undefined;
    entry.deadlineNext = undefined;
    entry.deadlineLane = undefined;
    if (this.head !== undefined) return;
    if (lanes.size > KEPT_LANES) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      if (lanes.get(this.ms) === this) lanes.delete(this.ms);
    } else {
      // Stays set (it drops the lane when it fires) but keeps nothing alive.
      this.#timer?.unref();
    }
  }

  /** A new first entry, due at `deadline`: the timer must keep the process alive and fire by then. */
  #wake(deadline: number): void {
    if (this.#timer && this.#timerAt <= deadline) {
      this.#timer.ref();
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#arm(deadline - performance.now());
  }

  #arm(ms: number): void {
    const wait = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(ms)));
    this.#timerAt = performance.now() + wait;
    this.#timer = setTimeout(this.#fire, wait);
  }

  /** Hands every entry now due to its owner; then waits for the next, or drops the lane. */
  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    // Each entry leaves the lane before its owner sees it; one moved on goes back due after
    // now, so this ends.
    for (let entry = this.head; entry !== undefined && entry.deadline <= now; entry = this.head) {
      this.remove(entry);
      entry.deadlineOwner!.due(entry, this, now);
    }
    if (this.#timer) return; // an owner added a new first entry, which set the timer
    if (this.head) this.#arm(this.head.deadline - now);
    else if (lanes.get(this.ms) === this) lanes.delete(this.ms);
  };
}
