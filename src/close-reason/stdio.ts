/**
 * Why a stdio transport closed, besides `close()`. `stderrTail` (with the `stderrTail` option) is
 * the end of what the server wrote to stderr, Secrets redacted.
 */
export type StdioCloseReason =
  /** The server process exited on its own. */
  | {
      /** The reason's kind. */
      type: 'exit_status';
      /** The exit code, or null when a signal ended the process. */
      status: number | null;
      /** The signal that ended the process (`SIGKILL`...), or null when it exited. */
      signal: string | null;
      /** The end of the server's stderr, Secrets redacted (with the `stderrTail` option). */
      stderrTail?: string;
    }
  /** The process could not be started (missing executable, not executable, spawn error). */
  | {
      /** The reason's kind. */
      type: 'spawn_failed';
      /** What spawning reported. */
      error: Error;
    }
  /** The server wrote a line longer than `maxMessageBytes`. */
  | {
      /** The reason's kind. */
      type: 'message_too_large';
      /** The `maxMessageBytes` in force. */
      limit: number;
    }
  /** The server wrote more than `maxJunkLines` non-JSON-RPC lines in a row. */
  | {
      /** The reason's kind. */
      type: 'junk_output';
      /** The `maxJunkLines` in force. */
      limit: number;
    }
  /** More than `maxWriteQueueBytes` were waiting to be written: the server stopped reading. */
  | {
      /** The reason's kind. */
      type: 'write_queue_full';
      /** The `maxWriteQueueBytes` in force. */
      limit: number;
    }
  /** A pipe to the server failed (EPIPE and the like). */
  | {
      /** The reason's kind. */
      type: 'stream_error';
      /** The pipe's error. */
      error: Error;
    };

/** A sentence for each reason type of a union. */
export type Describers<Reason extends { type: string }> = {
  readonly [Type in Reason['type']]: (reason: Extract<Reason, { type: Type }>) => string;
};

/** One line per stdio close reason, for messages and logs. */
export const STDIO_CLOSE_REASON_TEXT: Describers<StdioCloseReason> = {
  exit_status: (reason) =>
    reason.signal
      ? `the server was killed by ${reason.signal}`
      : `the server exited with status ${reason.status}`,
  spawn_failed: (reason) => `the server could not be started: ${reason.error.message}`,
  message_too_large: (reason) => `the server wrote a message larger than ${reason.limit} bytes`,
  junk_output: (reason) => `the server wrote more than ${reason.limit} lines in a row that are not JSON-RPC`,
  write_queue_full: (reason) =>
    `the server stopped reading: more than ${reason.limit} bytes were waiting to be written`,
  stream_error: (reason) => `a pipe to the server failed: ${reason.error.message}`,
};
