import { performance } from 'node:perf_hooks';

/** setTimeout's ceiling; longer waits would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One timeout of a PausableClock. */
export interface PausableTimer {
  /** Stops it for good. */
  clear(): void;
  /** Starts its whole duration again from now. */
  refresh(): void;
}

/** A timer (or a lane of them) that came due while paused and waits for the clock to run again. */
export interface Resumable {
  resumeHeld(): void;
}

/**
 * Timeouts that stand still while the transport waits for a person (an OAuth consent: the user
 * may take minutes, and that wait has its own bound) and run on with the time they had left.
 * Pauses nest: the clock runs again when every pause has ended.
 *
 * Every request has a timer, and almost no clock is ever paused, so a timer costs what a plain
 * setTimeout costs: the clock keeps no list of its timers and reads no time while it runs. It
 * only adds up how long it stood still; a timer that comes due checks how much of that fell
 * within its wait and waits that much longer (or, due while paused, until the clock runs again).
 */
export class PausableClock {
  #pauses = 0;
  /** Time stood still in ended pauses, ms. */
  #pausedTotal = 0;
  /** performance.now() when the current pause began. */
  #pausedSince = 0;
  /** Timers that came due while paused, with time left: re-armed on resume. Made on first use. */
  #held: Set<Resumable> | undefined;

  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Time stood still so far, the current pause included, ms (only ever grows). */
  stoodStill(): number {
    return this.#pauses > 0 ? this.#pausedTotal + (performance.now() - this.#pausedSince) : this.#pausedTotal;
  }

  /** Time the clock has run, ms: performance.now() less the time it stood still. */
  runningTime(): number {
    return performance.now() - this.stoodStill();
  }

  setTimeout(fire: () => void, ms: number): PausableTimer {
    return new Timer(this, fire, Math.min(ms, MAX_TIMER_MS));
  }

  pause(): void {
    if (this.#pauses++ === 0) this.#pausedSince = performance.now();
  }

  resume(): void {
    if (this.#pauses === 0 || --this.#pauses > 0) return;
    this.#pausedTotal += performance.now() - this.#pausedSince;
    const held = this.#held;
    this.#held = undefined;
    if (held) for (const timer of held) timer.resumeHeld();
  }

  /** Keeps a timer that came due while paused until resume. */
  hold(timer: Resumable): void {
    this.#held ??= new Set();
    this.#held.add(timer);
  }

  release(timer: Resumable): void {
    this.#held?.delete(timer);
  }
}

class Timer implements PausableTimer, Resumable {
  readonly #clock: PausableClock;
  readonly #fire: () => void;
  readonly #ms: number;
  #handle: NodeJS.Timeout | undefined;
  /** The duration #handle was set for (refresh() can reuse it when it is #ms). */
  #armedFor = 0;
  /** The clock's stoodStill() when #handle was set. */
  #stillAtArm = 0;
  /** Running time still owed while held (due during a pause). */
  #left = 0;
  #held = false;
  #done = false;

  constructor(clock: PausableClock, fire: () => void, ms: number) {
    this.#clock = clock;
    this.#fire = fire;
    this.#ms = ms;
    this.#arm(ms);
  }

  #arm(ms: number): void {
    this.#armedFor = ms;
    this.#stillAtArm = this.#clock.stoodStill();
    this.#handle = setTimeout(this.#due, ms);
  }

  /**
   * Wall time `#armedFor` has passed; of it, the clock stood still for `owed`: the running time
   * the timer still has to wait.
   */
  readonly #due = (): void => {
    this.#handle = undefined;
    const owed = this.#clock.stoodStill() - this.#stillAtArm;
    if (owed <= 0) {
      this.#done = true;
      this.#fire();
    } else if (this.#clock.paused) {
      this.#left = owed;
      this.#held = true;
      this.#clock.hold(this);
    } else {
      this.#arm(owed);
    }
  };

  /** Called by the clock on resume for a held timer. */
  resumeHeld(): void {
    this.#held = false;
    if (!this.#done) this.#arm(this.#left);
  }

  clear(): void {
    this.#done = true;
    if (this.#handle) {
      clearTimeout(this.#handle);
      this.#handle = undefined;
    }
    if (this.#held) {
      this.#held = false;
      this.#clock.release(this);
    }
  }

  refresh(): void {
    if (this.#done) return;
    if (this.#held) {
      this.#left = this.#ms;
      return;
    }
    if (this.#handle && this.#armedFor === this.#ms) {
      this.#stillAtArm = this.#clock.stoodStill();
      this.#handle.refresh();
      return;
    }
    if (this.#handle) clearTimeout(this.#handle);
    this.#arm(this.#ms);
  }
}
