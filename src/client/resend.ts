import { wasNotRun } from '../transport/transport.js';

/**
 * `sent`, or, when it fails with an error the transport marked as never run (a legacy HTTP
 * session's 404: the server refused the request before running it), `again()` once: the
 * request sent on the next session. Every other failure stands as it is.
 */
export function resendIfNotRun(sent: Promise<unknown>, again: () => Promise<unknown>): Promise<unknown> {
  return sent.catch((error: unknown) => {
    if (!wasNotRun(error)) throw error;
    return again();
  });
}
