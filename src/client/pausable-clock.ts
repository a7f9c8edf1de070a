/** setTimeout's ceiling; longer waits would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One timeout of a PausableClock. */
export interface PausableTimer {
  /** Stops it for good. */
  clear(): void;
  /** Starts its whole duration again from now. */
  refresh(): void;
}

/**
 * Timeouts that stand still while the transport waits for a person (an OAuth consent: the user
 * may take minutes, and that wait has its own bound) and run on with the time they had left.
 * Pauses nest: the clock runs again when every pause has ended.
 */
export class PausableClock {
  #pauses = 0;
  readonly #timers = new Set<Timer>();

  get paused(): boolean {
    return this.#pauses > 0;
  }

  setTimeout(fire: () => void, ms: number): PausableTimer {
    const timer = new Timer(this.#timers, fire, Math.min(ms, MAX_TIMER_MS));
    this.#timers.add(timer);
    if (!this.paused) timer.run();
    return timer;
  }

  pause(): void {
    if (this.#pauses++ > 0) return;
    for (const timer of this.#timers) timer.hold();
  }

  resume(): void {
    if (this.#pauses === 0 || --this.#pauses > 0) return;
    for (const timer of this.#timers) timer.run();
  }

  /** A promise that resolves with undefined after `ms` of running time. */
  delay(ms: number): { promise: Promise<undefined>; clear(): void } {
    let timer: PausableTimer | undefined;
    const promise = new Promise<undefined>((resolve) => {
      timer = this.setTimeout(() => resolve(undefined), ms);
    });
    return { promise, clear: () => timer?.clear() };
  }
}

class Timer implements PausableTimer {
  #handle: NodeJS.Timeout | undefined;
  #left: number;
  #since = 0;

  constructor(
    readonly owner: Set<Timer>,
    readonly fire: () => void,
    readonly ms: number,
  ) {
    this.#left = ms;
  }

  run(): void {
    if (this.#handle || !this.owner.has(this)) return;
    this.#since = Date.now();
    this.#handle = setTimeout(() => {
      this.owner.delete(this);
      this.#handle = undefined;
      this.fire();
    }, this.#left);
  }

  hold(): void {
    if (!this.#handle) return;
    clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#left = Math.max(0, this.#left - (Date.now() - this.#since));
  }

  clear(): void {
    clearTimeout(this.#handle);
    this.#handle = undefined;
    this.owner.delete(this);
  }

  refresh(): void {
    if (!this.owner.has(this)) return;
    this.#left = this.ms;
    if (this.#handle) {
      clearTimeout(this.#handle);
      this.#handle = undefined;
      this.run();
    }
  }
}
