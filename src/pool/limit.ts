/** At most `size` holders at once; the others wait in order. */
export class Limiter {
  readonly #size: number;
  /** Places taken: a place handed from a holder to a waiter stays taken. */
  #held = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #onIdle: (() => void) | undefined;

  /** `onIdle`: called when the last holder gives its place back and nobody waits for one. */
  constructor(size: number, onIdle?: () => void) {
    this.#size = size;
    this.#onIdle = onIdle;
  }

  /** Whether anyone holds a place or waits for one. */
  get busy(): boolean {
    return this.#held > 0 || this.#waiting.length > 0;
  }

  /** Resolves with a release function once a slot is free; call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.#held < this.#size) this.#held++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else if (--this.#held === 0) this.#onIdle?.();
    };
  }
}
