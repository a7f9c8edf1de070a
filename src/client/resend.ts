import { wasNotRun } from '../transport/transport.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import type { Supervisor } from './supervisor.js';

/**
 * Sends a request with `send`; on a legacy HTTP session, when it fails with an error the
 * transport marked as never run (a 404 for an expired session: the server refused it before
 * running it), sends it once more on the next session, within what is left of its timeout (ms).
 * Every other failure stands as it is.
 */
export function sendResending(
  supervisor: Supervisor,
  session: Session,
  method: string,
  options: RequestOptions,
  defaultTimeout: number,
  send: (session: Session, options: RequestOptions) => Promise<unknown>,
): Promise<unknown> {
  const sent = send(session, options);
  if (session.era !== 'legacy' || supervisor.transport?.kind !== 'http') return sent;
  const timeout = options.timeout ?? defaultTimeout;
  const started = Date.now();
  return sent.catch(async (error: unknown) => {
    if (!wasNotRun(error)) throw error;
    const left = Math.max(1, timeout - (Date.now() - started));
    const next = await supervisor.whenReady(method, {
      signal: options.signal,
      timeout: left,
      replacing: session,
    });
    return send(next, { ...options, timeout: left });
  });
}
