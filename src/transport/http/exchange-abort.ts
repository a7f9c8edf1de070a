import { EventEmitter } from 'node:events';

/**
 * The cancellation of one request of ours. An AbortSignal costs a few µs to make and to listen to,
 * on every request, though few are ever aborted; this is an EventEmitter, which undici takes as a
 * request's `signal` (documented: "AbortSignal | EventEmitter"). A real AbortSignal is made only
 * when something asks for `signal` (a resumed legacy stream, the HTTP+SSE wire), and follows it.
 */
export class ExchangeAbort extends EventEmitter {
  aborted = false;
  reason: unknown;
  #controller: AbortController | undefined;

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
  }

  /** An AbortSignal that aborts with this (made on first use; aborted already if this is). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }
}
