import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { Implementation } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { CloseReason } from '../transport/transport.js';

/**
 * Where a Client is: `idle` (not connected yet), `connecting` (first attempt), `ready`,
 * `reconnecting` (connection lost or attempt failed, waiting or trying again), `closed` (for good).
 */
export type ClientState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closed';

/** The `'ready'` event's payload: what this connection agreed with the server. */
export interface ReadyEvent {
  /** The protocol era in use: `'modern'` or `'legacy'`. */
  era: Era;
  /** The protocol version agreed, e.g. `2025-11-25`. */
  protocolVersion: string;
  /** The server's name and version, as it described itself (absent if it did not). */
  serverInfo: Implementation | undefined;
}

/** The `'reconnecting'` event's payload. */
export interface ReconnectingEvent {
  /** Which attempt this is, from 1. */
  attempt: number;
  /** The backoff before it, ms. */
  delay: number;
  /** What made this attempt necessary: the failed attempt's error, or the lost connection. */
  error: Error;
}

/** The lifecycle events, and every server notification: the Client passes them on as they are. */
export interface LifecycleEvents {
  /**
   * The server sent its first message of this connection attempt: its process runs (or its
   * origin answers). The era probe and the handshake follow; `ready` comes after them. For a host
   * that limits how many servers boot at once (ClientPool frees a start place here).
   */
  booted: [];
  /** A connection is ready (the first one, and each one after a reconnect). */
  ready: [event: ReadyEvent];
  /** A ready connection was lost; `reconnecting` or `closed` follows. */
  disconnected: [reason: CloseReason];
  /** An attempt to connect again is scheduled after a backoff. */
  reconnecting: [event: ReconnectingEvent];
  /** The client stopped for good: undefined after `close()`, else the last close reason (if any) when it gave up. */
  closed: [reason: CloseReason | undefined];
  /** Every notification the server sends, as it came (the typed events below come as well). */
  notification: [notification: JsonRpcNotification];
}
