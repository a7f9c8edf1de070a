/** At most `size` holders at once; the others wait in order. */
export class Limiter {
  #free: number;
  readonly #waiting: Array<() => void> = [];
  readonly #onDrained: (() => void) | undefined;

  /** `onDrained`: called when the last waiter gets its place (nobody waits any more). */
  constructor(size: number, onDrained?: () => void) {
    this.#free = size;
    this.#onDrained = onDrained;
  }

  /** How many wait for a place. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves with a release function once a slot is free; call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) {
        next();
        if (this.#waiting.length === 0) this.#onDrained?.();
      } else this.#free++;
    };
  }
}
