import type { ClientEvents } from '../client/client.js';
import type { ReadyEvent } from '../client/supervisor.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { LogMessage } from '../protocol/results.js';
import type { CloseReason } from '../transport/transport.js';
import type { ToolsChangedEvent } from './pins.js';
import type { ServerState } from './server-status.js';

/** A Client event's payload with the pool server's name added. */
export type WithServer<T> = {
  /** The pool server's name. */
  server: string;
} & T;

/**
 * The pool's events: each server's Client events with the server's name added, and the
 * `server*` events that report a server's state changes (its status is already updated when
 * they run). In every payload, `server` is the server's name.
 */
export interface ClientPoolEvents {
  /** A server became ready (its first connection or a reconnection); the same payload as `ready`. */
  serverReady: [event: WithServer<ReadyEvent>];
  /** A server failed to start, or lost its connection and is being restarted. */
  serverError: [
    event: {
      /** The server's name. */ server: string;
      /** What went wrong. */ error: Error;
      /** Its state now, e.g. `failed`, `reconnecting`, `needs_auth`. */ state: ServerState;
      /** Next attempt (ms since the epoch), if scheduled. */ nextAttemptAt: number | undefined;
    },
  ];
  /** A server's Client stopped for good: `reason` is its last close reason, undefined after `close()`. */
  serverClosed: [
    event: {
      /** The server's name. */ server: string;
      /** Its last close reason; undefined after `close()`. */ reason: CloseReason | undefined;
    },
  ];
  /** An HTTP server waits for the user's OAuth consent at `url` (its `onAuthorizationUrl` was called). */
  serverNeedsAuth: [
    event: {
      /** The server's name. */ server: string;
      /** The authorization URL to open. */ url: URL;
    },
  ];
  /** A server's Client's `'ready'`, with its name. */
  ready: [event: WithServer<ReadyEvent>];
  /** A server's Client's `'disconnected'`: `reason` says why the connection closed. */
  disconnected: [
    event: {
      /** The server's name. */ server: string;
      /** Why the connection closed. */ reason: CloseReason;
    },
  ];
  /** A server's Client's `'reconnecting'`, with its name. */
  reconnecting: [event: WithServer<ClientEvents['reconnecting'][0]>];
  /** A server's Client's `'closed'`, with its name (`reason` undefined after `close()`). */
  closed: [
    event: {
      /** The server's name. */ server: string;
      /** Its last close reason; undefined after `close()`. */ reason: CloseReason | undefined;
    },
  ];
  /** Every notification of every server, as it came (`notification`). */
  notification: [
    event: {
      /** The server's name. */ server: string;
      /** The notification as it came. */ notification: JsonRpcNotification;
    },
  ];
  /** A server's log message, with its name. */
  log: [event: WithServer<LogMessage>];
  /** A server's tool list changed. */
  toolsListChanged: [
    event: {
      /** The server's name. */ server: string;
    },
  ];
  /**
   * With `pinning`: a server's tools differ from their pins (added, removed, changed with which
   * fields, hidden characters); a changed tool's `trust` says whether the policy holds it.
   */
  toolsChanged: [event: ToolsChangedEvent];
  /** A server's resource or template list changed. */
  resourcesListChanged: [
    event: {
      /** The server's name. */ server: string;
    },
  ];
  /** A server's prompt list changed. */
  promptsListChanged: [
    event: {
      /** The server's name. */ server: string;
    },
  ];
  /** A subscribed resource of a server changed: `uri` names it. */
  resourceUpdated: [
    event: {
      /** The server's name. */ server: string;
      /** The resource's URI. */ uri: string;
    },
  ];
}

/** Where a pool name leads. */
export interface ResolvedName {
  /** Whether the name is a tool's or a prompt's. */
  readonly kind: 'tool' | 'prompt';
  /** The server that has it. */
  readonly server: string;
  /** Its name on that server. */
  readonly originalName: string;
}
