import { setTimeout as sleep } from 'node:timers/promises';
import { debug } from '../../diagnostics.js';
import { discard, drain, mediaType } from './body.js';
import type { HttpResponse, Requester } from './requester.js';
import type { StreamState } from './sse.js';

/** Wait before reconnecting a stream whose server named no `retry:`, ms. */
export const DEFAULT_RETRY_MS = 1000;
/** Reconnections of one stream in a row that bring no event before we stop trying. */
export const MAX_STREAM_RECONNECTS = 5;
/** Longest `retry:` honoured, ms; a server cannot park a request for longer. */
const MAX_RETRY_MS = 60_000;

/** How long the DELETE that ends a session may take, ms. */
const DELETE_TIMEOUT_MS = 2000;

/**
 * A legacy (2025-11-25 and earlier) Streamable HTTP session: the `MCP-Session-Id` the server
 * issued with its answer to `initialize`, sent on every later request, and the version the
 * handshake chose, sent as `MCP-Protocol-Version`. The id is a credential: never logged.
 */
export class LegacyHttpSession {
  constructor(
    readonly sessionId: string | undefined,
    readonly protocolVersion: string,
  ) {}

  headers(): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': this.protocolVersion };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }
}

/** What the stream loops need from the transport. */
export interface StreamIo {
  /** GET the endpoint with these extra headers. */
  get(headers: Record<string, string>, signal: AbortSignal): Promise<HttpResponse>;
  /** Reads an SSE response to its end, delivering its messages; resolves with the count of events. */
  consume(response: HttpResponse, state: StreamState): Promise<number>;
  /** The server answered 404 to our session id. */
  expired(status: number): void;
  readonly name: string;
}

function retryDelay(state: StreamState): number {
  return Math.min(state.retry ?? DEFAULT_RETRY_MS, MAX_RETRY_MS);
}

function streamHeaders(session: LegacyHttpSession, state: StreamState): Record<string, string> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...session.headers() };
  if (state.lastEventId !== undefined) headers['last-event-id'] = state.lastEventId;
  return headers;
}

/**
 * Whether a GET answer is the event stream asked for. Any other is dropped: a 404 to our session
 * id ends the session, anything else is logged as `refusal`.
 */
function isEventStream(
  response: HttpResponse,
  session: LegacyHttpSession,
  io: StreamIo,
  refusal: string,
): boolean {
  const type = mediaType(response.headers['content-type']);
  if (response.status === 200 && type === 'text/event-stream') return true;
  discard(response.body);
  if (response.status === 404 && session.sessionId !== undefined) io.expired(response.status);
  else debug('%s: %s (HTTP %d %s)', io.name, refusal, response.status, type || 'no type');
  return false;
}

/**
 * The optional standalone GET stream for server requests and notifications. A 405 (or, without
 * an issued session id, a 404 or 400) means the server offers none; a 404 to our session id
 * means the session is over. A stream the server ends is reopened after its `retry:` delay,
 * resuming with `Last-Event-ID`, until MAX_STREAM_RECONNECTS opens in a row bring nothing.
 */
export async function runStandaloneStream(
  session: LegacyHttpSession,
  io: StreamIo,
  signal: AbortSignal,
): Promise<void> {
  const state: StreamState = {};
  let idle = 0;
  while (!signal.aborted && idle < MAX_STREAM_RECONNECTS) {
    let response: HttpResponse;
    try {
      response = await io.get(streamHeaders(session, state), signal);
    } catch (error) {
      if (signal.aborted) return;
      debug('%s: the GET stream failed: %s', io.name, (error as Error).message);
      idle += 1;
      await sleep(retryDelay(state), undefined, { signal }).catch(() => {});
      continue;
    }
    if (!isEventStream(response, session, io, 'no standalone GET stream')) return;
    const events = await io.consume(response, state);
    if (signal.aborted) return;
    idle = events > 0 ? 0 : idle + 1;
    await sleep(retryDelay(state), undefined, { signal }).catch(() => {});
  }
}

/**
 * Resumes a request's event stream that ended before the response: after the server's `retry:`
 * delay, GET with `Last-Event-ID`, as often as MAX_STREAM_RECONNECTS allows. Resolves true once
 * `answered()` is, false when the stream cannot be resumed (no event id, or the server refuses).
 */
export async function resumeStream(
  session: LegacyHttpSession,
  state: StreamState,
  io: StreamIo,
  answered: () => boolean,
  signal: AbortSignal,
): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_STREAM_RECONNECTS; attempt++) {
    if (state.lastEventId === undefined || signal.aborted) return false;
    await sleep(retryDelay(state), undefined, { signal }).catch(() => {});
    if (signal.aborted || answered()) return answered();
    let response: HttpResponse;
    try {
      response = await io.get(streamHeaders(session, state), signal);
    } catch (error) {
      debug('%s: resuming a stream failed: %s', io.name, (error as Error).message);
      continue;
    }
    if (!isEventStream(response, session, io, 'the server refused to resume a stream')) return false;
    await io.consume(response, state);
    if (answered()) return true;
  }
  return answered();
}

/** Ends a session the server issued an id for (DELETE); a failure is only logged. */
export async function endSession(
  session: LegacyHttpSession,
  requester: Requester,
  url: URL,
  name: string,
): Promise<void> {
  if (session.sessionId === undefined) return;
  try {
    const response = await requester.send(url, {
      method: 'DELETE',
      headers: session.headers(),
      signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
      mcpMethod: 'end of session',
    });
    drain(response.body);
  } catch (error) {
    debug('%s: DELETE of the session failed: %s', name, (error as Error).message);
  }
}
