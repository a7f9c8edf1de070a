import type { Era } from '../protocol/versions.js';

/**
 * A pool server's state:
 * - `idle`: lazy, not started yet;
 * - `starting`: its first connection is under way (within `startTimeout`);
 * - `ready`: connected;
 * - `reconnecting`: it was ready, lost the connection, and is being restarted;
 * - `needs_auth`: an HTTP server waiting for the user's OAuth consent (`onAuthorizationUrl` was
 *   called), or whose authorization failed with an `AuthError` (not retried);
 * - `failed`: it never became ready (or its client gave up); `error` says why and
 *   `nextAttemptAt` when its reconnect policy tries again, if it does;
 * - `disabled`: `"disabled": true` in the config, never started;
 * - `closed`: `close()` was called.
 */
export type ServerState =
  | 'idle'
  | 'starting'
  | 'ready'
  | 'reconnecting'
  | 'needs_auth'
  | 'failed'
  | 'disabled'
  | 'closed';

/** One pool server's status, as `status()` reports it. */
export interface ServerStatus {
  /** The server's name. */
  readonly name: string;
  /** Where it is. */
  readonly state: ServerState;
  /** The era of its latest connection; undefined before the first. */
  readonly era: Era | undefined;
  /** A stdio server's pid while it runs. */
  readonly pid: number | undefined;
  /** An HTTP server's URL. */
  readonly url: string | undefined;
  /**
   * Tools last listed (kept while the server is down); undefined before the first list. A server
   * ready while others boot in `connect()` is listed once the last of them has booted (or as
   * `connect()` resolves), any other on its ready.
   */
  readonly toolCount: number | undefined;
  /** Its last error, cleared when it is ready again; undefined if none. */
  readonly error: Error | undefined;
  /** When the next attempt starts (ms since the epoch, as `Date.now()`), while one is scheduled. */
  readonly nextAttemptAt: number | undefined;
  /** Attempts made after the first (restarts after a loss, retries of a failed start). */
  readonly restarts: number;
  /** Whether it starts on first use instead of in `connect()`. */
  readonly lazy: boolean;
}
