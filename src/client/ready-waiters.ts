import { AbortError, RequestTimeoutError } from '../errors.js';
import type { Session } from './eras/session.js';
import type { PausableClock } from './pausable-clock.js';
import { waitFor } from './wait.js';

interface Waiter {
  resolve: (session: Session) => void;
  reject: (error: Error) => void;
}

export interface ReadyWait {
  /** The request that waits, for its errors. */
  readonly method: string;
  readonly server: string;
  /** The request's own timeout (ms) and signal. */
  readonly timeout: number;
  readonly signal?: AbortSignal | undefined;
  /** Why the session is not ready (the failure that made the client reconnect), read at the timeout. */
  readonly cause: () => Error | undefined;
}

/** Requests waiting for a (re)connection: each gets the next ready session, within its own timeout and signal. */
export class ReadyWaiters {
  readonly #waiters = new Set<Waiter>();
  readonly #clock: PausableClock;

  constructor(clock: PausableClock) {
    this.#clock = clock;
  }

  /** The next ready session; a RequestTimeoutError past the timeout, an AbortError on abort. */
  wait(request: ReadyWait): Promise<Session> {
    const { method, server, timeout } = request;
    let waiter!: Waiter;
    const ready = new Promise<Session>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.#waiters.add(waiter);
    return waitFor(ready, {
      timeout,
      clock: this.#clock,
      signal: request.signal,
      onTimeout: () => {
        this.#waiters.delete(waiter);
        throw new RequestTimeoutError(method, timeout, { server, cause: request.cause() });
      },
      onAbort: (reason) => {
        this.#waiters.delete(waiter);
        throw new AbortError(method, reason, { server });
      },
    });
  }

  /** A session is ready: every waiting request gets it. */
  resolve(session: Session): void {
    for (const waiter of this.#take()) waiter.resolve(session);
  }

  /** The client closed: every waiting request rejects with `error`. */
  reject(error: Error): void {
    for (const waiter of this.#take()) waiter.reject(error);
  }

  #take(): Waiter[] {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    return waiters;
  }
}
