import { AbortError, ProtocolError, RequestTimeoutError } from '../../errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { isInputMethod, MAX_HANDLER_RUNS, runInputHandler } from './handlers.js';
import type { SessionContext } from './session.js';

/** The modern era's `inputRequests`: entries by key, each an input method and its params. */
export type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/** The limits of one round of answers. */
export interface InputRoundLimits {
  /** The request the inputs belong to, named in errors (e.g. `tools/call`). */
  readonly method: string;
  /** Aborts the handlers; the round then rejects with an AbortError. */
  readonly signal: AbortSignal | undefined;
  /** What is left of the time the round may take, ms. */
  readonly budget: number;
  /** The request's timeout, named by the RequestTimeoutError when the budget runs out. */
  readonly timeout: number;
}

/**
 * Answers every entry of a modern `inputRequests` with the user's handlers, at once; resolves with
 * the `inputResponses` by the same keys, or undefined when there were none. Used by the MRTR
 * retry loop and by the tasks extension's `tasks/update`. An entry whose method is not an input
 * method, or more entries than MAX_HANDLER_RUNS, is a ProtocolError; the signal or the budget
 * ends the handlers still running.
 */
export async function answerInputRequests(
  context: SessionContext,
  requests: unknown,
  limits: InputRoundLimits,
): Promise<JsonObject | undefined> {
  const { method, signal, budget, timeout } = limits;
  const server = context.name;
  if (requests === undefined || requests === null) return undefined;
  if (typeof requests !== 'object') {
    throw new ProtocolError(`${method} returned inputRequests that is not an object`, { server });
  }
  const entries = Object.entries(requests as InputRequests);
  if (entries.length > MAX_HANDLER_RUNS) {
    throw new ProtocolError(
      `${method} asked for ${entries.length} inputs at once; the client answers at most ${MAX_HANDLER_RUNS}`,
      { server },
    );
  }
  const controller = new AbortController();
  const onAbort = () => controller.abort(new AbortError(method, signal!.reason, { server }));
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new RequestTimeoutError(method, timeout, { server })),
    budget,
  );
  const stopped = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  stopped.catch(() => {});
  try {
    const answered = await Promise.race([
      Promise.all(
        entries.map(async ([key, input]) => {
          const inputMethod = input?.method;
          if (typeof inputMethod !== 'string' || !isInputMethod(inputMethod)) {
            throw new ProtocolError(
              `${method} asked for an unknown input ${JSON.stringify(inputMethod)} (key ${key})`,
              { server },
            );
          }
          return [key, await runInputHandler(context, inputMethod, input.params, controller.signal)] as const;
        }),
      ),
      stopped,
    ]);
    return Object.fromEntries(answered);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (!controller.signal.aborted) controller.abort(new Error('the input round is over'));
  }
}
