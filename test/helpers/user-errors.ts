import assert from 'node:assert/strict';

/** What the tests' user callbacks throw, so a test can tell them from anything else. */
export class UserCallbackError extends Error {
  constructor(where: string) {
    super(`user code threw in ${where}`);
  }
}

/**
 * Takes the uncaught exceptions of a test that makes user callbacks throw on purpose (the library
 * re-throws them on the next tick). `stop()` hands them back and fails if any is not a
 * UserCallbackError: the library's own errors must never escape. With `keep: false` the user
 * callbacks' errors are only counted (`count`), so a test that measures the heap measures the
 * library, not thousands of kept errors and their stacks; foreign errors are always kept.
 */
export function captureUncaught(options: { keep?: boolean } = {}): {
  readonly errors: unknown[];
  readonly count: number;
  stop(): UserCallbackError[];
} {
  const keep = options.keep ?? true;
  const errors: unknown[] = [];
  let count = 0;
  process.setUncaughtExceptionCaptureCallback((error) => {
    count++;
    if (keep || !(error instanceof UserCallbackError)) errors.push(error);
  });
  return {
    errors,
    get count() {
      return count;
    },
    stop() {
      process.setUncaughtExceptionCaptureCallback(null);
      const foreign = errors.filter((error) => !(error instanceof UserCallbackError));
      assert.deepEqual(foreign, [], "only the user callbacks' own errors were re-thrown");
      return errors as UserCallbackError[];
    },
  };
}
