import type { Describers } from './stdio.js';

/** Why an HTTP transport closed, besides `close()`. */
export type HttpCloseReason =
  /** Legacy era: the server answered 404 to our `MCP-Session-Id`; a new session is needed. */
  | {
      /** The reason's kind. */
      type: 'session_expired';
      /** The HTTP status (404). */
      status: number;
    }
  /** The transport cannot go on (the 2024-11-05 event stream failed or named another origin). */
  | {
      /** The reason's kind. */
      type: 'http_error';
      /** An HttpError saying what failed. */
      error: Error;
    };

/** One line per HTTP close reason, for messages and logs. */
export const HTTP_CLOSE_REASON_TEXT: Describers<HttpCloseReason> = {
  session_expired: (reason) => `the server ended the session (HTTP ${reason.status} to our MCP-Session-Id)`,
  http_error: (reason) => reason.error.message,
};
