import { EventEmitter } from 'node:events';

/**
 * User code at the library's edges (listeners, handlers, `onProgress`, Secret functions) runs
 * after our state has changed, and its exceptions never unwind through our frames: they are
 * thrown again in an immediate, outside the library's call stack, as Node does for a throwing
 * listener. Nothing is swallowed: without an `'uncaughtException'` handler the process fails as
 * it would for any other throw of the user's own. Not a nextTick: a tick callback that throws
 * while Node closes a native callback scope, with the throw handled (an `'uncaughtException'`
 * listener, a capture callback), aborts Node 26 (`InternalCallbackScope::Close` assertion).
 */
export function rethrowLater(error: unknown): void {
  setImmediate(() => {
    throw error;
  });
}

/** Calls user code; a throw, or a rejection of the promise it returns, is re-thrown later. */
export function callUser(callback: () => unknown): void {
  try {
    const returned = callback();
    if (isThenable(returned)) returned.then(undefined, rethrowLater);
  } catch (error) {
    rethrowLater(error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * An EventEmitter whose `emit` calls every listener, each on its own: a listener that throws (or
 * an async one that rejects) is reported by {@link rethrowLater} and neither stops the other
 * listeners nor unwinds into the code that emitted. Every event the library emits goes through it.
 */
// biome-ignore lint/suspicious/noExplicitAny: mirrors EventEmitter's own type parameter
export class SafeEmitter<T extends Record<keyof T, any[]> = Record<string, any[]>> extends EventEmitter<T> {}

type Listener = (...args: unknown[]) => unknown;

function safeEmit(this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
  // A copy: a listener added or removed meanwhile does not change this emit.
  const listeners = this.rawListeners(event) as Listener[];
  for (const listener of listeners) callListener(this, listener, args);
  return listeners.length > 0;
}

/** callUser's rule, for a listener. */
function callListener(emitter: EventEmitter, listener: Listener, args: unknown[]): void {
  try {
    const returned = Reflect.apply(listener, emitter, args);
    if (isThenable(returned)) returned.then(undefined, rethrowLater);
  } catch (error) {
    rethrowLater(error);
  }
}
(SafeEmitter.prototype as EventEmitter).emit = safeEmit;
