import { McpError, ProtocolError, UsageError } from '../../errors.js';
import { INVALID_PARAMS } from '../../jsonrpc/error-codes.js';
import { INPUT_METHODS, type InputMethod } from '../../protocol/types.js';
import { normalizeRoots } from '../roots.js';
import { answerElicitation } from './elicitation.js';
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
 * capability this client never declared. Elicitation and sampling requests and answers are
 * checked (see elicitation.ts; sampling: tools only if declared, a CreateMessageResult back).
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
  const request = params ?? {};
  // Settles when the handler does or when the signal aborts (the server cancelled, the connection
  // closed), whichever is first: a handler that never settles holds nothing of the session.
  const call = (input: Record<string, unknown>) =>
    untilAborted(() => handler(input, { server: context.name, signal }), signal);
  if (kind === 'elicitation') {
    return answerElicitation(
      {
        name: context.name,
        handler: (input) => call(input),
        modes: context.elicitationModes ?? ['form'],
        validateSchema: context.validateSchema,
      },
      request,
      signal,
    );
  }
  if (kind === 'sampling') {
    if ((request.tools !== undefined || request.toolChoice !== undefined) && !context.samplingTools) {
      throw new McpError(
        INVALID_PARAMS,
        'this client did not declare sampling.tools: a sampling request with tools or toolChoice is refused',
      );
    }
    const problem = samplingRequestProblem(request);
    if (problem) throw new McpError(INVALID_PARAMS, `invalid sampling/createMessage request: ${problem}`);
    return checkSamplingResult(await call(request));
  }
  return checkRootsResult(await call(request));
}

/** A ListRootsResult whose every root is a file:// URI, sent normalised; anything else is refused. */
function checkRootsResult(result: unknown): unknown {
  const roots = normalizeRoots((result as { roots?: unknown } | null)?.roots);
  if (!Array.isArray(roots)) {
    const where = roots.index === undefined ? '' : ` (roots[${roots.index}])`;
    throw new UsageError(
      `handlers.roots must resolve with { roots: [{ uri: 'file:///...' }] }: ${roots.problem}${where}`,
    );
  }
  return { ...(result as object), roots };
}

/**
 * What is wrong with a sampling request's messages, or undefined: a non-empty `messages` array,
 * each with role `user` or `assistant` and content a block (or an array of blocks) with a string
 * `type`, and a positive integer `maxTokens`. The handler never sees a malformed conversation.
 */
export function samplingRequestProblem(request: Record<string, unknown>): string | undefined {
  const { messages, maxTokens } = request;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must be a non-empty array';
  for (const [index, message] of messages.entries()) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role !== 'user' && role !== 'assistant')
      return `messages[${index}].role must be 'user' or 'assistant'`;
    const blocks = Array.isArray(content) ? content : [content];
    if (
      blocks.length === 0 ||
      !blocks.every((block) => typeof (block as { type?: unknown } | null)?.type === 'string')
    )
      return `messages[${index}].content must be a content block or an array of them, each with a type`;
  }
  if (!Number.isInteger(maxTokens) || (maxTokens as number) <= 0)
    return 'maxTokens must be a positive integer';
  return undefined;
}

/** A CreateMessageResult needs a role, content and model; anything else is the handler's bug. */
function checkSamplingResult(result: unknown): unknown {
  const value = result as { role?: unknown; content?: unknown; model?: unknown } | null;
  const problem =
    typeof value !== 'object' || value === null
      ? 'an object'
      : value.role !== 'assistant' && value.role !== 'user'
        ? "role 'assistant' or 'user'"
        : typeof value.content !== 'object' || value.content === null
          ? 'content (a content block or an array of them)'
          : typeof value.model !== 'string'
            ? 'model (the name of the model used)'
            : undefined;
  if (problem) {
    throw new UsageError(
      `handlers.sampling must resolve with a CreateMessageResult; it lacks ${problem}: ${JSON.stringify(result)?.slice(0, 200)}`,
    );
  }
  return result;
}

function untilAborted<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
  const running = Promise.resolve().then(run);
  if (signal.aborted) {
    running.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    running.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
