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
   * for its acknowledgement, or was ended by the server (the next subscription opens a new one).
   */
  readonly type: 'log_level_refused' | 'resubscribe_failed' | 'listen_failed';
  /** One sentence, starting with the server's name. */
  readonly message: string;
  /** The failure itself. */
  readonly error: Error;
}

export type WarningSink = (warning: ClientWarning) => void;
