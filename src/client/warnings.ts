import { channels, debug } from '../diagnostics.js';
/**
 * Something the client did on its own initiative failed, and the connection goes on without it.
 * Emitted as the Client's `'warning'` event, published on `conduit-mcp:client:warning`, and
 * logged under `NODE_DEBUG=conduit-mcp`.
 */
export interface ClientWarning {
  /**
   * `log_level_refused`: `logging/setLevel` after a legacy handshake failed (the server stays
   * connected, without the level); `resubscribe_failed`: restoring a `resources/subscribe` after a
   * restart failed; `listen_failed`: a modern `subscriptions/listen` failed, timed out waiting
   * for its acknowledgement, or was ended by the server (the next subscription opens a new one);
   * `subscription_narrowed`: the server acknowledged a `subscriptions/listen` with less than was
   * asked (`requested`, `granted`); `ping_failed`: a `pingInterval` ping failed or timed out;
   * `log_level_unsupported`: a log level is wanted (the `logLevel` option, `setLogLevel`) and the
   * server does not declare `logging` (nothing is sent; the level is kept for a later process).
   */
  readonly type:
    | 'log_level_refused'
    | 'log_level_unsupported'
    | 'resubscribe_failed'
    | 'listen_failed'
    | 'subscription_narrowed'
    | 'ping_failed';
  /** One sentence, starting with the server's name. */
  readonly message: string;
  /** The failure itself. */
  readonly error: Error;
  /** subscription_narrowed: the filter asked for. */
  readonly requested?: unknown;
  /** subscription_narrowed: the filter the server acknowledged. */
  readonly granted?: unknown;
}

export type WarningSink = (warning: ClientWarning) => void;

/** A client's WarningSink: each warning logged, published on `conduit-mcp:client:warning`, then emitted. */
export function warningSink(server: string, emit: (warning: ClientWarning) => void): WarningSink {
  return (warning) => {
    debug('%s', warning.message);
    if (channels.warning.hasSubscribers) channels.warning.publish({ server, warning });
    emit(warning);
  };
}
