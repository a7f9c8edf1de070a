import { callUser } from '../user-code.js';

/** A `notifications/progress` payload. */
export interface Progress {
  /** How far along, in the server's units (the protocol has it increase with each notification). */
  progress: number;
  /** The total, if the server knows it. */
  total?: number;
  /** What is happening now, for people. */
  message?: string;
}

/**
 * Progress callbacks one request gets in a burst; past it, notifications of the same event-loop
 * turn are coalesced into the latest, delivered on the next turn (and before the result).
 */
export const MAX_PROGRESS_CALLS_PER_TURN = 16;

/** One request's progress on its way to the caller's `onProgress`, bursts coalesced. */
export class ProgressRelay {
  readonly #onProgress: (progress: Progress) => void;
  /** Callbacks since the last coalesced delivery. */
  #calls = 0;
  /** The latest progress not yet delivered (past the cap), delivered on the next turn. */
  #held: Progress | undefined;

  constructor(onProgress: (progress: Progress) => void) {
    this.#onProgress = onProgress;
  }

  /** Delivers `progress`, or past the cap keeps it for the next turn, when `stillWanted()` says so. */
  push(progress: Progress, stillWanted: () => boolean): void {
    if (this.#calls < MAX_PROGRESS_CALLS_PER_TURN) {
      this.#calls++;
      callUser(() => this.#onProgress(progress));
      return;
    }
    if (this.#held === undefined) {
      setImmediate(() => {
        if (stillWanted()) this.flush();
      });
    }
    this.#held = progress;
  }

  /** Delivers what is held, if anything (a settling request calls it before its result). */
  flush(): void {
    const progress = this.#held;
    this.#held = undefined;
    this.#calls = 0;
    if (progress) callUser(() => this.#onProgress(progress));
  }
}
