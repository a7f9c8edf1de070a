import { performance } from 'node:perf_hooks';
import { MAX_TIMER_MS } from '../validate.js';

/** One timeout of a PausableClock. */
export interface PausableTimer {
  /** Stops it for good. */
  clear(): void;
  /** Starts its whole duration again from now. */
  refresh(): void;
}

interface Entry {
  readonly fire: () => void;
  readonly ms: number;
  /** Running time still to wait, as of `since` (while running) or as it stands (while paused). */
  left: number;
  since: number;
  handle: NodeJS.Timeout | undefined;
}

/**
 * One Client's timeouts, which stand still while a person is asked (an OAuth consent: the user may
 * take minutes, and that wait has its own bound) and then run on with the time they had left.
 * Pauses nest: the clock runs again when every pause has ended.
 */
export class PausableClock {
  #pauses = 0;
  readonly #entries = new Set<Entry>();
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
    const entry: Entry = { fire, ms: Math.min(ms, MAX_TIMER_MS), left: 0, since: 0, handle: undefined };
    entry.left = entry.ms;
    this.#entries.add(entry);
    if (this.#pauses === 0) this.#run(entry);
    return {
      clear: () => this.#clear(entry),
      refresh: () => {
        if (!this.#entries.has(entry)) return;
        entry.left = entry.ms;
        if (entry.handle === undefined) return;
        clearTimeout(entry.handle);
        this.#run(entry);
      },
    };
  }

  pause(): void {
    if (this.#pauses++ > 0) return;
    const now = performance.now();
    this.#pausedSince = now;
    for (const entry of this.#entries) {
      clearTimeout(entry.handle);
      entry.handle = undefined;
      entry.left = Math.max(0, entry.left - (now - entry.since));
    }
  }

  resume(): void {
    if (this.#pauses === 0 || --this.#pauses > 0) return;
    this.#stoodStill += performance.now() - this.#pausedSince;
    for (const entry of this.#entries) this.#run(entry);
  }

  #run(entry: Entry): void {
    entry.since = performance.now();
    entry.handle = setTimeout(() => {
      this.#entries.delete(entry);
      entry.fire();
    }, entry.left);
  }

  #clear(entry: Entry): void {
    clearTimeout(entry.handle);
    this.#entries.delete(entry);
  }
}
