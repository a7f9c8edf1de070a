import type { TextPolicy } from './sanitize.js';

/** Where the CLI writes, and how it shows server text. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (live progress line). */
  errIsTty: boolean;
  /** stdout's columns when it is a terminal (tables fit it); undefined otherwise (nothing is cut). */
  width?: number | undefined;
  policy: TextPolicy;
}

/**
 * stderr that a reader may close early (`2>&1 | head`, a closed pipe): once a write fails, the
 * rest of the messages are dropped. Messages are a side channel: losing them must not lose
 * stdout's result or change the exit code, and an unhandled EPIPE would do both.
 */
export function closableStderr(): (text: string) => void {
  let closed = false;
  process.stderr.on('error', () => {
    closed = true;
  });
  return (text) => {
    if (!closed) process.stderr.write(text);
  };
}

/**
 * stdout that a reader may close early (`| head`): the first EPIPE calls `onClosed` once, and
 * everything written after it is dropped, so neither a stack trace nor a second error follows.
 */
export function closableStdout(onClosed: () => void): {
  write: (text: string) => void;
  closed: () => boolean;
} {
  let closed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (closed) return;
    closed = true;
    if (error.code !== 'EPIPE')
      process.stderr.write(`conduit-mcp: cannot write to stdout: ${error.message}\n`);
    onClosed();
  });
  return {
    write: (text) => {
      if (!closed) process.stdout.write(text);
    },
    closed: () => closed,
  };
}
