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
 * UserCallbackError: the library's own errors must never escape.
 */
export function captureUncaught(): { readonly errors: unknown[]; stop(): UserCallbackError[] } {
  const errors: unknown[] = [];
  process.setUncaughtExceptionCaptureCallback((error) => errors.push(error));
  return {
    errors,
    stop() {
      process.setUncaughtExceptionCaptureCallback(null);
      const foreign = errors.filter((error) => !(error instanceof UserCallbackError));
      assert.deepEqual(foreign, [], "only the user callbacks' own errors were re-thrown");
      return errors as UserCallbackError[];
    },
  };
}
