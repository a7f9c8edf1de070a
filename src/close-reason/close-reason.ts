import { HTTP_CLOSE_REASON_TEXT, type HttpCloseReason } from './http.js';
import { type Describers, STDIO_CLOSE_REASON_TEXT, type StdioCloseReason } from './stdio.js';

/**
 * Why a transport closed; `'close'` is emitted exactly once with one of these. `closed` is common
 * to every transport; each transport kind adds its own reasons (one module beside this one).
 */
export type CloseReason =
  /** `close()` was called. */
  | {
      /** `'closed'`. */
      type: 'closed';
    }
  /**
   * Client only (never a transport's): the process ran but the connection attempt failed: the
   * handshake was refused or timed out, or `connectTimeout` passed. `error` says which.
   */
  | {
      /** `'connect_failed'`. */
      type: 'connect_failed';
      /** Why the attempt failed. */
      error: Error;
    }
  /**
   * Client only: a `pingInterval` ping was not answered within `timeout` ms, so the server is
   * taken as lost (its transport is closed and the client reconnects).
   */
  | {
      /** `'ping_timeout'`. */
      type: 'ping_timeout';
      /** The ping interval that passed, ms. */
      timeout: number;
    }
  /**
   * A custom transport (or an in-memory pair) ended on its own: the other end went away, or,
   * with `error`, the transport failed. Also what a custom transport's unknown close reason becomes.
   */
  | {
      /** `'ended'`. */
      type: 'ended';
      /** The transport's failure, if it failed. */
      error?: Error;
    }
  | StdioCloseReason
  | HttpCloseReason;

/** Every close reason's `type`: `'closed'`, `'exit_status'`, `'session_expired'` and so on. */
export type CloseReasonType = CloseReason['type'];

const CLOSE_REASON_TEXT: Describers<CloseReason> = {
  closed: () => 'closed by the client',
  connect_failed: (reason) => `the connection attempt failed: ${reason.error.message}`,
  ping_timeout: (reason) => `the server did not answer a ping within ${reason.timeout} ms`,
  ended: (reason) =>
    reason.error
      ? `the transport failed: ${reason.error.message}`
      : 'the other end of the transport went away',
  ...STDIO_CLOSE_REASON_TEXT,
  ...HTTP_CLOSE_REASON_TEXT,
};

/** One line that says why a transport closed, for messages and logs. */
export function describeCloseReason(reason: CloseReason): string {
  return (CLOSE_REASON_TEXT[reason.type] as (reason: CloseReason) => string)(reason);
}

/** True for a reason a transport may close with: `closed`, `ended`, or a kind's own (not the Client's). */
export function isTransportCloseReasonType(type: string): boolean {
  return (
    type === 'closed' ||
    type === 'ended' ||
    Object.hasOwn(STDIO_CLOSE_REASON_TEXT, type) ||
    Object.hasOwn(HTTP_CLOSE_REASON_TEXT, type)
  );
}
