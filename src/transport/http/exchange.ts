import { ConnectionClosedError, HttpError } from '../../errors.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/messages.js';
import { markNotRun } from '../transport.js';
import { authorizationNeeded, bodyError, invalidBody } from './answer-errors.js';
import { discard, drain, headerString, mediaType, readBounded, readPrefix } from './body.js';
import type { ExchangeAbort } from './exchange-abort.js';
import { modernVersionOf } from './headers.js';
import { type LegacyHttpSession, resumeStream, type StreamIo } from './legacy-session.js';
import type { LegacySseChannel } from './legacy-sse.js';
import { hasCredentials, type ResolvedHttpOptions } from './options.js';
import { displayUrl, type HttpResponse, type Requester, type SendInit } from './requester.js';
import type { StreamState } from './sse.js';

/** One request of ours on its way: its own POST and the answer to it. */
export interface Exchange {
  readonly id: RequestId;
  readonly method: string;
  readonly modern: boolean;
  readonly abort: ExchangeAbort;
}

/** What an exchange reads of its transport, and how it hands back what it found. */
export interface ExchangeHost {
  readonly options: ResolvedHttpOptions;
  readonly requester: Requester;
  readonly name: string | undefined;
  /** The option key prefix with its dot (`transport.`), or empty: for messages naming an option. */
  readonly keyPrefix: string;
  /** The legacy session, once the legacy Session told its version. */
  session(): LegacyHttpSession | undefined;
  /** The HTTP+SSE channel, once the endpoint turned out to speak only that. */
  sse(): LegacySseChannel | undefined;
  /** The modern version of the last modern request, if any. */
  modernVersion(): string | undefined;
  /** Aborted when the transport closes. */
  stopSignal(): AbortSignal;
  /** The `MCP-Session-Id` the answer to `initialize` carried (or none). */
  sessionIssued(id: string | undefined): void;
  isPending(exchange: Exchange): boolean;
  /** Hands up the JSON-RPC messages of a JSON body (only errors unless `success`); false if it holds none. */
  deliverJson(body: Buffer | string, exchange: Exchange, success: boolean): boolean;
  /** Reads an event stream to its end, handing up its messages; resolves with how many events it carried. */
  consume(response: HttpResponse, state: StreamState, exchange?: Exchange): Promise<number>;
  /** What the legacy stream loops use; its `expired` closes the transport. */
  streamIo(): StreamIo;
  fail(exchange: Exchange, error: Error): void;
  /** `initialize` was refused in a way that may mean a 2024-11-05 HTTP+SSE endpoint. */
  fallBack(exchange: Exchange, message: JsonRpcRequest, error: HttpError): Promise<void>;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';

/** POSTs one request and reads its answer; a request that gets none fails through `host.fail`. */
export async function postRequest(
  host: ExchangeHost,
  exchange: Exchange,
  message: JsonRpcRequest,
  headers: Record<string, string>,
  body: string,
): Promise<void> {
  headers.accept = ACCEPT_BOTH;
  headers['content-type'] = 'application/json';
  const init: SendInit = {
    method: 'POST',
    headers,
    body,
    signal: exchange.abort,
    mcpMethod: message.method,
    protocolVersion: versionFor(message, host.session()),
  };
  try {
    const response = await host.requester.send(host.options.url, init);
    const answered = answer(host, exchange, message, response, init);
    if (answered !== undefined) await answered;
  } catch (error) {
    host.fail(exchange, host.requester.toHttpError(error, host.options.url, init));
  }
}

/** The version a request goes under, for authorization discovery: its `_meta`'s, initialize's offer, or the session's. */
function versionFor(message: JsonRpcRequest, session: LegacyHttpSession | undefined): string | undefined {
  const version = modernVersionOf(message);
  if (version !== undefined) return version;
  const offered = message.method === 'initialize' ? message.params?.protocolVersion : undefined;
  return typeof offered === 'string' ? offered : session?.protocolVersion;
}

/** Reads the answer: at once, with no promise, when it is JSON whose body is here whole (the usual case). */
function answer(
  host: ExchangeHost,
  exchange: Exchange,
  message: JsonRpcRequest,
  response: HttpResponse,
  init: SendInit,
): Promise<void> | undefined {
  const { status } = response;
  const type = mediaType(response.headers['content-type']);
  if (status < 400 && message.method === 'initialize')
    host.sessionIssued(headerString(response.headers['mcp-session-id']));
  if (status < 400 && type === 'application/json') return answerJson(host, exchange, response, init);
  if (status >= 400) return answerError(host, exchange, message, response, init, type);
  if (type === 'text/event-stream') return answerStream(host, exchange, message, response);
  return answerOther(host, exchange, message, response, init, type);
}

/** A 2xx or 3xx that is neither JSON nor an event stream: no answer to the request. */
async function answerOther(
  host: ExchangeHost,
  exchange: Exchange,
  message: JsonRpcRequest,
  response: HttpResponse,
  init: SendInit,
  type: string,
): Promise<void> {
  const { status } = response;
  const error = await host.requester.statusError(response, init);
  const noAnswer = status === 202 || status === 204;
  const where = `POST ${displayUrl(host.options.url)} (${message.method})`;
  host.fail(
    exchange,
    new HttpError(
      noAnswer ? 'invalid_body' : 'content_type',
      noAnswer
        ? `${where} answered ${status} with no response to the request`
        : `${where} answered ${status} with Content-Type ${JSON.stringify(type)}, neither application/json nor text/event-stream${error.bodyExcerpt ? `: ${error.bodyExcerpt}` : ''}`,
      { url: displayUrl(host.options.url), method: message.method, status, bodyExcerpt: error.bodyExcerpt },
      { server: host.name },
    ),
  );
}

/** A JSON answer (2xx or 3xx), read within maxMessageBytes; one that answers nothing fails the exchange. */
function answerJson(
  host: ExchangeHost,
  exchange: Exchange,
  response: HttpResponse,
  init: SendInit,
): Promise<void> | undefined {
  const { maxMessageBytes, bodyTimeout } = host.options;
  let read: Buffer | Promise<Buffer>;
  try {
    read = readBounded(
      response.body,
      maxMessageBytes,
      headerString(response.headers['content-length']),
      bodyTimeout,
    );
  } catch (error) {
    throw readFailure(host, response, init, error);
  }
  if (read instanceof Promise) {
    return read.then(
      (body) => deliverBody(host, exchange, response, init, body),
      (error: unknown) => Promise.reject(readFailure(host, response, init, error)),
    );
  }
  return deliverBody(host, exchange, response, init, read);
}

/** The HttpError of a JSON body that could not be read (too large, stalled, cut off). */
function readFailure(host: ExchangeHost, response: HttpResponse, init: SendInit, error: unknown): Error {
  const { bodyTimeout } = host.options;
  return bodyError(error, response, init, { requester: host.requester, bodyTimeout, server: host.name });
}

function deliverBody(
  host: ExchangeHost,
  exchange: Exchange,
  response: HttpResponse,
  init: SendInit,
  body: Buffer,
): Promise<void> | undefined {
  const delivered = host.deliverJson(body, exchange, true);
  if (delivered && !host.isPending(exchange)) return undefined;
  return host.requester.statusError(response, init, body).then((error) => {
    host.fail(exchange, invalidBody(error, init, delivered ? exchange.id : undefined, host.name));
  });
}

/**
 * An error status. A JSON-RPC error in the body is the server's answer; a 404 to a legacy
 * session id means the session is over; a refused `initialize` may mean HTTP+SSE.
 */
async function answerError(
  host: ExchangeHost,
  exchange: Exchange,
  message: JsonRpcRequest,
  response: HttpResponse,
  init: SendInit,
  type: string,
): Promise<void> {
  const { status } = response;
  if (
    status === 404 &&
    !exchange.modern &&
    host.session()?.sessionId !== undefined &&
    message.method !== 'initialize'
  ) {
    discard(response.body);
    // It never ran, so the Client may send it once more on the next session.
    const refused = new ConnectionClosedError(
      { type: 'session_expired', status },
      { server: host.name, method: message.method },
    );
    host.fail(exchange, markNotRun(refused));
    host.streamIo().expired(status);
    return;
  }
  const body = await readPrefix(response.body);
  if (status === 401 && !hasCredentials(host.options)) {
    const error = await host.requester.statusError(response, init, body);
    host.fail(exchange, authorizationNeeded(error, init, host.keyPrefix, host.name));
    return;
  }
  if (type === 'application/json' && host.deliverJson(body, exchange, false) && !host.isPending(exchange))
    return;
  const error = await host.requester.statusError(response, init, body);
  if (message.method === 'initialize' && host.options.legacySse && error.eraSignal) {
    await host.fallBack(exchange, message, error);
    return;
  }
  host.fail(exchange, error);
}

/**
 * An event stream: read to its end. One that ends before the response is resumed in a legacy
 * session (Last-Event-ID); otherwise the request fails with `stream_broken`.
 */
async function answerStream(
  host: ExchangeHost,
  exchange: Exchange,
  message: JsonRpcRequest,
  response: HttpResponse,
): Promise<void> {
  const state: StreamState = {};
  await host.consume(response, state, exchange);
  if (!host.isPending(exchange) || exchange.abort.aborted) return;
  const session = host.session();
  if (!exchange.modern && session) {
    const answered = () => !host.isPending(exchange);
    if (await resumeStream(session, state, host.streamIo(), answered, exchange.abort.signal)) return;
  }
  host.fail(
    exchange,
    new HttpError(
      'stream_broken',
      `the event stream for ${message.method} (id ${String(exchange.id)}) ended before its response`,
      { url: displayUrl(host.options.url), method: message.method, status: response.status },
      { server: host.name },
    ),
  );
}

/**
 * POSTs a notification or the answer to a server request; a failure is logged, and only a 404
 * to a legacy session id (the session is over) closes the transport.
 */
export async function postQuietly(
  host: ExchangeHost,
  message: JsonRpcMessage,
  body: string,
  log: (text: string) => void,
): Promise<void> {
  const method = 'method' in message ? message.method : undefined;
  const what = method === undefined ? 'response' : 'notification';
  const stop = host.stopSignal();
  const sse = host.sse();
  if (sse) {
    await sse
      .post(body, method ?? 'a response', stop)
      .catch((error: Error) => log(`${what} POST failed: ${error.message}`));
    return;
  }
  const session = host.session();
  const modern = host.modernVersion();
  let headers: Record<string, string>;
  if (session) headers = session.headers();
  else if (modern && method) headers = { 'mcp-protocol-version': modern, 'mcp-method': method };
  else headers = {};
  headers.accept = ACCEPT_BOTH;
  headers['content-type'] = 'application/json';
  const init: SendInit = { method: 'POST', headers, body, signal: stop, mcpMethod: method ?? 'a response' };
  try {
    const response = await host.requester.send(host.options.url, init);
    if (response.status === 404 && session?.sessionId !== undefined) {
      discard(response.body);
      host.streamIo().expired(404);
      return;
    }
    if (response.status >= 400) {
      log((await host.requester.statusError(response, init)).message);
      return;
    }
    drain(response.body);
  } catch (error) {
    if (!stop.aborted) log(`${what} POST failed: ${(error as Error).message}`);
  }
}
