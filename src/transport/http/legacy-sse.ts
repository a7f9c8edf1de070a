import type { Readable } from 'node:stream';
import { channels, debug } from '../../diagnostics.js';
import { HttpError } from '../../errors.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { discard, drain, mediaType } from './body.js';
import { displayUrl, type Requester, type SendInit } from './requester.js';
import { type CreateParser, SseReader } from './sse.js';

export interface LegacySseOptions {
  readonly url: URL;
  readonly requester: Requester;
  readonly createParser: CreateParser;
  readonly maxMessageBytes: number;
  /** How long to wait for the `endpoint` event, ms. */
  readonly endpointTimeout: number;
  readonly signal: AbortSignal;
  readonly name: string | undefined;
  readonly deliver: (message: JsonRpcMessage) => void;
  /** The event stream ended or failed: the transport cannot go on. */
  readonly closed: (error: HttpError) => void;
}

/**
 * The 2024-11-05 HTTP+SSE transport: one GET event stream that first names, in an `endpoint`
 * event, where to POST; then every server message arrives on that stream. The POST URL must be
 * on the stream's origin, or credentials would follow it elsewhere.
 */
export class LegacySseChannel {
  readonly #endpoint: URL;
  readonly #requester: Requester;
  readonly #stream: AbortController;

  constructor(endpoint: URL, requester: Requester, stream: AbortController) {
    this.#endpoint = endpoint;
    this.#requester = requester;
    this.#stream = stream;
  }

  get endpoint(): string {
    return displayUrl(this.#endpoint);
  }

  /**
   * POSTs one message (`body`, serialised; `mcpMethod` for errors); the answer comes on the event
   * stream. Rejects with an HttpError on an error status.
   */
  async post(body: string, mcpMethod: string, signal: SendInit['signal']): Promise<void> {
    const init: SendInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
      signal,
      mcpMethod,
    };
    const response = await this.#requester.send(this.#endpoint, init);
    if (response.status >= 400) throw await this.#requester.statusError(response, init);
    drain(response.body);
  }

  close(): void {
    this.#stream.abort(new Error('the transport closed'));
  }
}

/** Opens the event stream and waits for its `endpoint` event; rejects if this is no HTTP+SSE server. */
export async function openLegacySse(options: LegacySseOptions): Promise<LegacySseChannel> {
  const { url, requester, name } = options;
  const stream = new AbortController();
  const signal = AbortSignal.any([stream.signal, options.signal]);
  const init = {
    method: 'GET' as const,
    headers: { accept: 'text/event-stream' },
    signal,
    mcpMethod: 'HTTP+SSE stream',
  };
  const response = await requester.send(url, init);
  if (response.status !== 200 || mediaType(response.headers['content-type']) !== 'text/event-stream') {
    stream.abort();
    throw await requester.statusError(response, init);
  }
  return new Promise<LegacySseChannel>((resolve, reject) => {
    let channel: LegacySseChannel | undefined;
    const body = response.body as Readable;
    const fail = (kind: HttpError['kind'], detail: string, limit?: number) => {
      const error = new HttpError(
        kind,
        `GET ${displayUrl(url)}${detail}`,
        { url: displayUrl(url), status: response.status, ...(limit === undefined ? {} : { limit }) },
        { server: name },
      );
      clearTimeout(timer);
      stream.abort(error);
      discard(body);
      if (channel) options.closed(error);
      else reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          'timeout',
          ` opened an event stream but sent no endpoint event within ${options.endpointTimeout} ms`,
        ),
      options.endpointTimeout,
    );
    const reader = new SseReader(options.createParser, options.maxMessageBytes, {
      onEvent: (event) => {
        if (!channel) {
          if (event.event !== 'endpoint') {
            fail(
              'invalid_body',
              ': the event stream did not start with an endpoint event, so this is not an MCP server',
            );
            return;
          }
          const endpoint = URL.canParse(event.data.trim(), url.href)
            ? new URL(event.data.trim(), url)
            : undefined;
          if (!endpoint || endpoint.origin !== url.origin) {
            fail(
              'foreign_endpoint',
              `: the HTTP+SSE endpoint event names ${endpoint ? endpoint.origin : 'no valid URL'}, not ${url.origin}; refusing to send anything there`,
            );
            return;
          }
          clearTimeout(timer);
          channel = new LegacySseChannel(endpoint, requester, stream);
          resolve(channel);
          return;
        }
        if ((event.event ?? 'message') !== 'message' || event.data === '') return;
        let value: unknown;
        try {
          value = JSON.parse(event.data);
        } catch {
          debug(
            '%s: dropped an HTTP+SSE event that is not JSON (%d bytes)',
            name ?? 'client',
            event.data.length,
          );
          return;
        }
        for (const message of Array.isArray(value) ? value : [value]) {
          if (typeof message === 'object' && message !== null) options.deliver(message as JsonRpcMessage);
        }
      },
      onRetry: () => {},
      onTooLarge: (limit) =>
        fail(
          'message_too_large',
          `: an HTTP+SSE event is larger than maxMessageBytes (${limit} bytes)`,
          limit,
        ),
    });
    const ended = () => {
      if (!signal.aborted) fail('stream_broken', ': the HTTP+SSE event stream ended');
    };
    body.on('data', (chunk: Buffer) => reader.push(chunk));
    body.once('end', ended);
    body.once('error', ended);
  });
}

/**
 * The last step of era detection over HTTP: `initialize` was refused (`refused`) in a way that
 * may mean a 2024-11-05 HTTP+SSE endpoint, so its event stream is opened. Resolves with the
 * channel, or with the error the `initialize` fails with: a redirect or a foreign endpoint of
 * the stream's own, else the refusal.
 */
export async function fallBackToLegacySse(
  options: LegacySseOptions,
  refused: HttpError,
): Promise<LegacySseChannel | HttpError> {
  const step = (detail: string) => {
    debug('%s: %s', options.name ?? 'client', detail);
    if (channels.era.hasSubscribers) channels.era.publish({ server: options.name, step: 'http+sse', detail });
  };
  step(
    `initialize answered HTTP ${refused.details.status ?? refused.kind}: trying the 2024-11-05 HTTP+SSE transport (GET ${displayUrl(options.url)})`,
  );
  try {
    const channel = await openLegacySse(options);
    step(`the endpoint speaks the 2024-11-05 HTTP+SSE transport; messages go to ${channel.endpoint}`);
    return channel;
  } catch (error) {
    step(`no HTTP+SSE endpoint either: ${(error as Error).message}`);
    const own =
      error instanceof HttpError && (error.kind === 'foreign_endpoint' || error.kind === 'redirect');
    return own ? error : refused;
  }
}
