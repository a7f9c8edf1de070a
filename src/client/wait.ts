import { MAX_TIMER_MS } from '../validate.js';
import type { PausableClock } from './pausable-clock.js';

export interface WaitOptions<U> {
  /** Milliseconds; an infinite timeout never ends the wait. */
  readonly timeout: number;
  /** The clock the timeout runs on (it stands still while a person is asked); by default Node's timers. */
  readonly clock?: PausableClock | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Ends the wait past the timeout: what it returns resolves the wait, what it throws rejects it. */
  readonly onTimeout: () => U;
  /** Ends the wait when the signal aborts (already or later), as onTimeout does; by default it rejects with the reason. */
  readonly onAbort?: (reason: unknown) => U;
}

/**
 * Whichever comes first: `promise` settling (none given: only the timeout or the signal ends the
 * wait), the timeout, or the signal. The timer and the abort listener go as the wait ends.
 */
export function waitFor<T, U = never>(
  promise: Promise<T> | undefined,
  options: WaitOptions<U>,
): Promise<T | U> {
  const { timeout, clock, signal, onTimeout, onAbort = rethrow } = options;
  return new Promise<T | U>((resolve, reject) => {
    let timer: { clear(): void } | undefined;
    const aborted = () => end(() => onAbort(signal!.reason));
    const end = (outcome: () => T | U) => {
      timer?.clear();
      signal?.removeEventListener('abort', aborted);
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    promise?.then(
      (value) => end(() => value),
      (error: unknown) =>
        end(() => {
          throw error;
        }),
    );
    if (signal?.aborted) return aborted();
    if (Number.isFinite(timeout)) timer = startTimer(clock, () => end(onTimeout), timeout);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function startTimer(clock: PausableClock | undefined, fire: () => void, ms: number): { clear(): void } {
  if (clock) return clock.setTimeout(fire, ms);
  const handle = setTimeout(fire, Math.min(ms, MAX_TIMER_MS));
  return { clear: () => clearTimeout(handle) };
}

function rethrow(reason: unknown): never {
  throw reason;
}
