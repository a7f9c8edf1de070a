import { debug } from '../../diagnostics.js';
import { AbortError, HttpError, McpError, RequestTimeoutError } from '../../errors.js';
import { HEADER_MISMATCH } from '../../jsonrpc/error-codes.js';
import type { JsonObject, RequestId } from '../../jsonrpc/messages.js';
import type { Connection, InternalRequestOptions } from '../connection.js';
import type { SessionContext } from './session.js';
import { mirrorsToolHeaders, screenTools } from './tool-screening.js';

/**
 * When a modern request goes to the server a second time. A broken event stream loses the
 * request (2026-07-28 changelog): only the methods without side effects are sent again, with a
 * new id. A HeaderMismatch (-32020) on a tools/call means the `Mcp-Param-*` headers came from a
 * stale schema (or none): tools/list is read again and the call sent once more.
 */

/** Methods sent again after a broken stream: none of them changes anything on the server. */
const REISSUABLE: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'ping',
]);

/** Pages of tools/list read, at most, to find a tool again after a HeaderMismatch. */
const MAX_RELIST_PAGES = 10;

/** The failure of a request whose event stream ended before its response. */
function isBrokenStream(error: unknown): error is HttpError {
  return error instanceof HttpError && error.kind === 'stream_broken';
}

/** The broken-stream failure of a request that is not sent again, saying why. */
function notSentAgain(error: HttpError, method: string, id: RequestId | undefined): HttpError {
  return new HttpError(
    'stream_broken',
    `the event stream for ${method} (id ${String(id)}) ended before its response; it may have run, so it is not sent again`,
    error.details,
    { server: error.server },
  );
}

function isHeaderMismatch(error: unknown): error is McpError {
  return error instanceof McpError && error.code === HEADER_MISMATCH;
}

/**
 * Lists tools page by page until `name` shows up, the pages end, or MAX_RELIST_PAGES were read:
 * the listings pass through the transport, which reads the tool's current `x-mcp-header`
 * bindings from them. Rejects with the first failure.
 */
async function relistTools(name: string, list: (cursor?: string) => Promise<unknown>): Promise<void> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_RELIST_PAGES; page++) {
    const result = (await list(cursor)) as { tools?: Array<{ name?: unknown }>; nextCursor?: unknown } | null;
    if (result?.tools?.some?.((tool) => tool?.name === name)) return;
    if (typeof result?.nextCursor !== 'string') return;
    cursor = result.nextCursor;
  }
}

/**
 * Sends the modern Session's requests, each with the era's `_meta`: a tools/list result is
 * screened where tool arguments go into headers, and a request goes again once where the rules
 * above say so, within what is left of its timeouts.
 */
export class ModernSender {
  readonly #connection: Connection;
  readonly #context: SessionContext;
  /** The params as they go on the wire: with the era's `_meta`. */
  readonly #withMeta: (params: JsonObject | undefined) => JsonObject;
  /**
   * Whether the HTTP binding's rules apply: tools with invalid `x-mcp-header` annotations are left
   * out, a HeaderMismatch heals, and a request is reissued after a broken event stream. Over any
   * other transport the connection's answer is the answer.
   */
  readonly #overHttp: boolean;

  constructor(
    connection: Connection,
    context: SessionContext,
    withMeta: (params: JsonObject | undefined) => JsonObject,
  ) {
    this.#connection = connection;
    this.#context = context;
    this.#withMeta = withMeta;
    this.#overHttp = mirrorsToolHeaders(connection.transport);
  }

  send(method: string, params: JsonObject | undefined, options: InternalRequestOptions): Promise<unknown> {
    return this.#send(method, params, options, false);
  }

  #send(
    method: string,
    params: JsonObject | undefined,
    options: InternalRequestOptions,
    again: boolean,
  ): Promise<unknown> {
    const sent = this.#connection.start(method, this.#withMeta(params), options);
    if (!this.#overHttp) return sent.promise;
    const sentAt = Date.now();
    const screened =
      method === 'tools/list'
        ? sent.promise.then((result) => {
            screenTools(result, this.#context.name);
            return result;
          })
        : sent.promise;
    return screened.catch((error: unknown) =>
      this.#sendAgain(error, method, params, options, { sentAt, id: sent.id, again }),
    );
  }

  async #sendAgain(
    error: unknown,
    method: string,
    params: JsonObject | undefined,
    options: InternalRequestOptions,
    sent: { sentAt: number; id: RequestId | undefined; again: boolean },
  ): Promise<unknown> {
    if (isBrokenStream(error)) {
      if (!REISSUABLE.has(method)) throw notSentAgain(error, method, sent.id);
      if (sent.again) throw error;
      debug('%s: the stream of %s broke; sending it again with a new id', this.#context.name, method);
      return this.#send(method, params, this.#rest(options, sent.sentAt), true);
    }
    if (!sent.again && method === 'tools/call' && isHeaderMismatch(error)) {
      await this.#relist(error, params, options, sent.sentAt);
      // The answered request goes again as it was: same id, the headers of the current schema.
      return this.#send(method, params, { ...this.#rest(options, sent.sentAt), id: sent.id }, true);
    }
    throw error;
  }

  /** The options of a request sent again: a new id, and what is left of its timeouts. */
  #rest(options: InternalRequestOptions, sentAt: number): InternalRequestOptions {
    const left = (limit: number | undefined) =>
      limit === undefined ? undefined : Math.max(1, limit - (Date.now() - sentAt));
    return {
      ...options,
      id: undefined,
      timeout: left(options.timeout ?? this.#context.requestTimeout),
      maxTotalTimeout: left(options.maxTotalTimeout),
    };
  }

  /**
   * After a HeaderMismatch on a tools/call: tools/list again, with the era's `_meta`, until the
   * tool shows up; nothing of it reaches the Client. If it fails, the server's -32020 stands; if
   * the call's signal or timeout ends it, the call fails as it would have.
   */
  async #relist(
    mismatch: McpError,
    params: JsonObject | undefined,
    options: InternalRequestOptions,
    sentAt: number,
  ): Promise<void> {
    const name = String(params?.name);
    const server = this.#context.name;
    const { signal, timeout, maxTotalTimeout } = this.#rest(options, sentAt);
    try {
      await relistTools(name, (cursor) =>
        this.#connection.request(
          'tools/list',
          this.#withMeta(cursor === undefined ? undefined : { cursor }),
          {
            signal,
            timeout,
            maxTotalTimeout,
          },
        ),
      );
    } catch (error) {
      if (error instanceof AbortError) throw new AbortError('tools/call', signal?.reason, { server });
      if (error instanceof RequestTimeoutError) {
        const total = options.maxTotalTimeout !== undefined && error.timeout === maxTotalTimeout;
        const limit = total ? options.maxTotalTimeout! : (options.timeout ?? this.#context.requestTimeout);
        throw new RequestTimeoutError('tools/call', limit, { server, total });
      }
      debug('%s: tools/list after a HeaderMismatch on %s failed: %s', server, name, (error as Error).message);
      throw mismatch;
    }
    debug('%s: HeaderMismatch on tools/call %s: sent again with its current schema', server, name);
  }
}
