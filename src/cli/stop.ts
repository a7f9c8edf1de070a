import { Interrupted, OutputClosed } from './exit-codes.js';

/**
 * How a run ends early: a signal or a closed stdout aborts every request in flight (which sends
 * `notifications/cancelled`) and rejects `race`, so the command unwinds and closes the client.
 */
export class Stopper {
  readonly controller = new AbortController();
  #reason: Error | undefined;
  #reject!: (error: Error) => void;
  readonly #stopped: Promise<never>;

  constructor() {
    this.#stopped = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.#stopped.catch(() => {});
  }

  get reason(): Error | undefined {
    return this.#reason;
  }

  stop(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.controller.abort(reason);
    this.#reject(reason);
  }

  /** The work, or the stop reason if the run is stopped first. The loser's rejection is handled. */
  race<T>(work: Promise<T>): Promise<T> {
    work.catch(() => {});
    if (this.#reason) return Promise.reject(this.#reason);
    return Promise.race([work, this.#stopped]);
  }
}

/**
 * SIGINT, SIGTERM, SIGHUP: the first stops the run (cancel, close, the server's shutdown
 * escalation as configured, then exit 130/143/129); a second one exits at once, and the library's
 * exit hook kills the server's whole process group with SIGKILL.
 */
export function installSignalHandlers(stopper: Stopper, say: (text: string) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      const first = stopper.reason;
      if (first === undefined || first instanceof OutputClosed) {
        say(
          `conduit-mcp: ${signal}: cancelling and stopping the server (${signal === 'SIGINT' ? 'Ctrl-C' : 'a signal'} again kills it at once)`,
        );
        stopper.stop(new Interrupted(signal));
        return;
      }
      process.exit(first instanceof Interrupted ? first.exitCode : new Interrupted(signal).exitCode);
    });
  }
}
