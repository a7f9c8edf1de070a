import { getEventListeners } from 'node:events';

/** Spare controllers kept at most; more than this many calls at once make new ones. */
const MAX_SPARE = 256;

/**
 * AbortControllers for the calls the gateway forwards, reused: a call that ended without being
 * aborted, and whose signal no one listens to any more, hands its controller to the next call.
 * A new AbortController per call was the largest cost of the gateway's own on a forwarded call
 * (bench group `gateway`, the stdio rows; see BENCHMARKS.md). An aborted controller, or one still
 * listened to, is never reused.
 */
export class ReusedControllers {
  readonly #spare: AbortController[] = [];

  /** A controller whose signal is not aborted and has no listener. */
  take(): AbortController {
    return this.#spare.pop() ?? new AbortController();
  }

  /** Gives back the controller of a call that ended; kept only when it can serve another unchanged. */
  give(controller: AbortController): void {
    if (controller.signal.aborted || this.#spare.length >= MAX_SPARE) return;
    if (getEventListeners(controller.signal, 'abort').length > 0) return;
    this.#spare.push(controller);
  }
}
