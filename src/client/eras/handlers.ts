import { ProtocolError } from '../../errors.js';
import { INPUT_METHODS, type InputMethod } from '../../protocol/types.js';
import type { SessionContext } from './session.js';

/**
 * Handler runs one session lets the server start at once (legacy requests in flight, or the
 * entries of one modern `inputRequests`); a request past it is refused, not queued.
 */
export const MAX_HANDLER_RUNS = 16;

export function isInputMethod(method: string): method is InputMethod {
  return Object.hasOwn(INPUT_METHODS, method);
}

/**
 * Answers one input request (legacy: a server request; modern: an `inputRequests` entry) with the
 * user's handler. Throws ProtocolError when no handler was given for it: the server asked for a
 * capability this client never declared.
 */
export async function runInputHandler(
  context: SessionContext,
  method: InputMethod,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<unknown> {
  const kind = INPUT_METHODS[method];
  const handler = context.handlers[kind];
  if (!handler) {
    throw new ProtocolError(
      `the server asked for ${method}, which this client does not offer (no handlers.${kind} was given)`,
      { server: context.name },
    );
  }
  // Settles when the handler does or when the signal aborts (the server cancelled, the connection
  // closed), whichever is first: a handler that never settles holds nothing of the session.
  const run = Promise.resolve().then(() => handler(params ?? {}, { server: context.name, signal }));
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
