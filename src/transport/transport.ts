import type { EventEmitter } from 'node:events';
import type { JsonRpcMessage } from '../jsonrpc/messages.js';

/** Why a transport closed; `'close'` is emitted exactly once with one of these. */
export type CloseReason =
  /** `close()` was called. */
  | { type: 'closed' }
  /** The server process exited on its own. */
  | { type: 'exit_status'; status: number | null; signal: string | null }
  /** The process could not be started (missing executable, not executable, spawn error). */
  | { type: 'spawn_failed'; error: Error }
  /** The server wrote a line longer than `maxMessageBytes`. */
  | { type: 'message_too_large'; limit: number }
  /** The server wrote more than `maxJunkLines` non-JSON-RPC lines in a row. */
  | { type: 'junk_output'; limit: number }
  /** More than `maxWriteQueueBytes` were waiting to be written: the server stopped reading. */
  | { type: 'write_queue_full'; limit: number }
  /** A pipe to the server failed (EPIPE and the like). */
  | { type: 'stream_error'; error: Error };

export type CloseReasonType = CloseReason['type'];

export interface TransportEvents {
  message: [message: JsonRpcMessage];
  close: [reason: CloseReason];
}

/**
 * Bytes <-> messages for one server process (or origin). The Connection above it knows nothing else.
 * After `'close'` nothing more is emitted and `send` throws `ConnectionClosedError`.
 */
export interface Transport extends EventEmitter<TransportEvents> {
  readonly kind: string;
  /** Starts the server; resolves once it runs. Rejects (and emits `'close'`) if it cannot start. */
  start(): Promise<void>;
  /** Hands one message to the server without waiting. Throws `ConnectionClosedError` after close. */
  send(message: JsonRpcMessage): void;
  /** Closes for good; resolves when the transport is closed (not when the process is gone). */
  close(): Promise<void>;
  /** The reason it closed, once it has. */
  readonly closeReason: CloseReason | undefined;
}
