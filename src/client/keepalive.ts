import { debug } from '../diagnostics.js';
import { RequestTimeoutError } from '../errors.js';
import type { Connection } from './connection.js';
import type { WarningSink } from './warnings.js';

/**
 * Legacy liveness (`pingInterval`): one `ping` every `interval` ms on one connection, the next
 * only after the last settled (never two at once). A ping unanswered within `interval` takes the
 * server as lost: the connection closes with `ping_timeout`. An error answer still proves the
 * server alive; it is logged and reported as a warning. Stops when the connection closes.
 */
export function keepAlive(
  connection: Connection,
  options: { name: string; interval: number; warn: WarningSink },
): () => void {
  const { name, interval, warn } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(ping, interval);
    timer.unref();
  };
  const ping = () => {
    connection.request('ping', undefined, { timeout: interval }).then(schedule, (error: Error) => {
      if (stopped || connection.closeReason) return;
      warn({
        type: 'ping_failed',
        message:
          error instanceof RequestTimeoutError
            ? `${name}: ping was not answered within ${interval} ms; the server is taken as lost and restarted`
            : `${name}: ping failed (${error.message}); the server answered, so it stays connected`,
        error,
      });
      if (error instanceof RequestTimeoutError) {
        stop();
        debug('%s: closing the connection after an unanswered ping', name);
        void connection.lose({ type: 'ping_timeout', timeout: interval });
        return;
      }
      schedule();
    });
  };
  connection.on('close', stop); // 'close' comes once: no once() wrapper
  schedule();
  return stop;
}
