import { HttpError } from '../../errors.js';
import { BodyTooLargeError } from './body.js';
import { displayUrl, type HttpResponse, type Requester, type SendInit } from './requester.js';

/**
 * The errors of answers that do not settle their request as they should: a body too large,
 * stalled or not JSON-RPC, a JSON answer to another id, a 401 where no authorization is
 * configured.
 */

/** A body that could not be read whole: too large, stalled, or broken. */
export function bodyError(
  error: unknown,
  response: HttpResponse,
  init: SendInit,
  context: { requester: Requester; bodyTimeout: number; server: string | undefined },
): Error {
  const where = `${init.method} ${displayUrl(response.url)} (${init.mcpMethod})`;
  const details = { url: displayUrl(response.url), method: init.mcpMethod, status: response.status };
  if (error instanceof BodyTooLargeError) {
    return new HttpError(
      'message_too_large',
      `${where}: the response body is larger than maxMessageBytes (${error.limit} bytes)`,
      { ...details, limit: error.limit },
      { server: context.server },
    );
  }
  if ((error as { code?: string }).code === 'CONDUIT_BODY_IDLE') {
    return new HttpError(
      'timeout',
      `${where}: the response body stalled for ${context.bodyTimeout} ms`,
      details,
      { server: context.server },
    );
  }
  return context.requester.toHttpError(error, response.url, init);
}

/** What an answer was: `POST <url> (<method>) answered HTTP <status>`, without the server's name. */
function answered(error: HttpError, init: Pick<SendInit, 'method'>): string {
  const { url, method, status } = error.details;
  return `${init.method} ${url}${method ? ` (${method})` : ''} answered HTTP ${status}`;
}

/**
 * A 2xx or 3xx JSON answer that settles nothing: no JSON-RPC message at all (`id` undefined), or
 * none answering the request `id` (only one to an id never requested, or only notifications), so
 * the request is settled now rather than left to its timeout. The server is named once.
 */
export function invalidBody(
  statusError: HttpError,
  init: SendInit,
  id: unknown,
  server: string | undefined,
): HttpError {
  const quote = statusError.details.bodyExcerpt;
  const what =
    id === undefined
      ? 'a body that is not a JSON-RPC message'
      : `JSON that holds no response to this request (id ${JSON.stringify(id)})`;
  return new HttpError(
    'invalid_body',
    `${answered(statusError, init)} with ${what}${quote ? `: ${quote}` : ''}`,
    statusError.details,
    { server },
  );
}

/**
 * A 401 from a server for which no authorization is configured: starting again cannot help, so
 * the message says what the server needs and where to give it.
 */
export function authorizationNeeded(
  statusError: HttpError,
  init: SendInit,
  /** The option key prefix with its dot (`transport.`), or empty. */
  key: string,
  server: string | undefined,
): HttpError {
  const quote = statusError.details.bodyExcerpt;
  return new HttpError(
    'status',
    `${answered(statusError, init)}${quote ? ` (${quote})` : ''}: the server needs authorization, and none is configured; give it with ${key}auth (OAuth options, or { bearer: new Secret(token) }) or a static Authorization header in ${key}headers`,
    statusError.details,
    { server },
  );
}
