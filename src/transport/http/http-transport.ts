import type { Readable } from 'node:stream';
import { channels, debug } from '../../diagnostics.js';
import {
  ConfigError,
  ConnectionClosedError,
  describeCloseReason,
  HttpError,
  UsageError,
} from '../../errors.js';
import { classify, isRequestId } from '../../jsonrpc/classify.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/messages.js';
import { serialize } from '../../jsonrpc/serialize.js';
import { isSecret, revealOption } from '../../secret.js';
import { SafeEmitter } from '../../user-code.js';
import type { CloseReason, Transport, TransportEvents } from '../transport.js';
import {
  authorizationNeeded,
  bodyError,
  invalidBody,
  refusedForExpiredSession,
  unanswered,
} from './answer-errors.js';
import { type HttpAuthorization, loadAuthorization } from './authorization.js';
import {
  discard,
  drain,
  ERROR_BODY_BYTES,
  headerString,
  mediaType,
  readBounded,
  readPrefix,
  redact,
} from './body.js';
import { ExchangeAbort } from './exchange-abort.js';
import {
  checkToolHeaders,
  type HeaderBinding,
  isHeaderMismatch,
  modernHeaders,
  modernVersionOf,
  paramHeaders,
} from './headers.js';
import { type LegacySseChannel, openLegacySse } from './legacy-sse.js';
import { type HttpOptions, hasCredentials, type ResolvedHttpOptions, resolveHttpOptions } from './options.js';
import {
  displayUrl,
  type HttpDeps,
  type HttpResponse,
  loadedHttpDeps,
  loadHttpDeps,
  Requester,
  type SendInit,
} from './requester.js';
import {
  LegacyHttpSession,
  resumeStream,
  runStandaloneStream,
  type StreamIo,
  type StreamState,
} from './session.js';
import { SseReader } from './sse.js';

/** Internal settings a Client passes down; not part of HttpOptions. */
export interface HttpTransportContext {
  readonly name?: string;
  readonly keyPrefix?: string;
  /** The environment whose proxy variables apply. @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Told while the OAuth flow waits for the user's consent (TransportRuntime.personWaiting). */
  readonly personWaiting?: (waiting: boolean) => void;
}

/** One request of ours on its way: its own POST and response stream. */
interface Exchange {
  readonly id: RequestId;
  readonly method: string;
  readonly modern: boolean;
  readonly abort: ExchangeAbort;
  /** `initialize` only: the MCP-Session-Id its response carried. */
  sessionId?: string;
  /** A `tools/call` already sent again after a HeaderMismatch (at most once). */
  headersRetried?: boolean;
  /** A request of the transport's own (the tools/list of a HeaderMismatch): answered here, not handed up. */
  internal?: { resolve(message: JsonRpcMessage): void; reject(error: Error): void };
}

/** An exchange's answer: settled, its stream broke (the error), or its headers must be rebuilt. */
type Outcome = HttpError | typeof HEADERS_STALE | undefined;
const HEADERS_STALE = Symbol('headers-stale');
/** Pages of tools/list read, at most, to find a tool's schema again after a HeaderMismatch. */
const MAX_REFRESH_PAGES = 10;

/**
 * The options fromResolved() hands to the constructor it calls, validated already: read and
 * cleared by that constructor before anything else can run (no context object copied to carry them).
 */
let resolvedForNext: ResolvedHttpOptions | undefined;

type State = 'new' | 'starting' | 'open' | 'closed';

const ACCEPT_BOTH = 'application/json, text/event-stream';
/**
 * Modern requests sent again, with a new id, when their event stream breaks before the response
 * (2026-07-28 changelog: a broken stream loses the request). Only requests without side effects:
 * a `tools/call` (or any other method) may already have run, so it fails with `stream_broken`.
 */
const REISSUABLE = new Set([
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
/** How long close() waits for the DELETE that ends a legacy session, ms. */
const DELETE_TIMEOUT_MS = 2000;

/**
 * Streamable HTTP, both eras, over one keep-alive pool for the endpoint's origin. Each message
 * is its own POST. What era a message belongs to is read from the message itself: a modern one
 * carries its version in `_meta` (and gets `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*`); `initialize` starts a legacy session, whose id and version go on every later
 * request. Answers may be JSON or event streams; every body and event is capped while it arrives.
 * A request that fails without a JSON-RPC answer settles alone through `'requestFailed'`.
 */
export class HttpTransport extends SafeEmitter<TransportEvents> implements Transport {
  readonly kind = 'http';
  readonly #options: ResolvedHttpOptions;
  readonly #name: string | undefined;
  readonly #keyPrefix: string;
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #personWaiting: ((waiting: boolean) => void) | undefined;
  #state: State = 'new';
  #closeReason: CloseReason | undefined;
  #closing: Promise<void> | undefined;
  #deps: HttpDeps | undefined;
  #requester: Requester | undefined;
  readonly #exchanges = new Map<RequestId, Exchange>();
  /** Aborts every background stream and notification POST at close; made on first use (a modern connect needs none). */
  #stopController: AbortController | undefined;
  #session: LegacyHttpSession | undefined;
  #sse: LegacySseChannel | undefined;
  #modernVersion: string | undefined;
  /** The `x-mcp-header` bindings of each tool listed; made on the first tool that has any. */
  #toolHeaders: Map<string, readonly HeaderBinding[]> | undefined;
  /** Re-issued requests: the id on the wire -> the id the Connection knows. */
  #aliases: Map<RequestId, RequestId> | undefined;
  #reissues = 0;
  /** The Secret header values, as sent: redacted from what `conduit-mcp:transport:message` shows. */
  #secrets: readonly string[] = [];

  constructor(options: HttpOptions, context: HttpTransportContext = {}) {
    super();
    const resolved = resolvedForNext;
    resolvedForNext = undefined;
    this.#options = resolved ?? resolveHttpOptions(options, context.keyPrefix ?? '');
    this.#name = context.name;
    this.#keyPrefix = context.keyPrefix ? `${context.keyPrefix}.` : '';
    this.#env = context.env;
    this.#personWaiting = context.personWaiting;
  }

  /** A transport from options validated already (by the Client's spec, once). */
  static fromResolved(options: ResolvedHttpOptions, context: HttpTransportContext = {}): HttpTransport {
    resolvedForNext = options;
    return new HttpTransport(undefined as unknown as HttpOptions, context);
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  /** The signal of close(): aborted already when asked for after it. */
  get #stopSignal(): AbortSignal {
    if (!this.#stopController) {
      this.#stopController = new AbortController();
      if (this.#closeReason) this.#stopController.abort(new Error('the transport closed'));
    }
    return this.#stopController.signal;
  }

  /** The endpoint, without its query. */
  get url(): string {
    return displayUrl(this.#options.url);
  }

  /** Which wire the transport speaks now: unknown until the first answer tells. */
  get wire(): 'modern' | 'streamable-http' | 'http+sse' | undefined {
    if (this.#sse) return 'http+sse';
    if (this.#session) return 'streamable-http';
    return this.#modernVersion ? 'modern' : undefined;
  }

  async start(): Promise<void> {
    if (this.#state !== 'new') throw new UsageError('an HttpTransport can be started only once');
    this.#state = 'starting';
    const secrets: string[] = [];
    const baseHeaders: Record<string, string> = {};
    let auth: HttpAuthorization | undefined;
    try {
      for (const [name, value] of this.#options.headers) {
        const key = `${this.#keyPrefix}headers.${name}`;
        const plain = isSecret(value) ? await revealOption(value, key, this.#name) : value;
        if (isSecret(value)) secrets.push(plain);
        baseHeaders[name.toLowerCase()] = plain;
      }
      const bearer = this.#options.bearer;
      if (bearer !== undefined) {
        const key = `${this.#keyPrefix}auth.bearer`;
        const token = isSecret(bearer) ? await revealOption(bearer, key, this.#name) : bearer;
        secrets.push(token);
        baseHeaders.authorization = `Bearer ${token}`;
      }
      this.#deps = loadedHttpDeps() ?? (await loadHttpDeps());
      if (this.#options.oauth) {
        auth = await loadAuthorization(
          this.#options.url,
          this.#options.oauth,
          this.#name,
          (waiting) => this.#personWaiting?.(waiting),
          this.#stopSignal,
        );
      }
    } catch (error) {
      // A Secret that cannot be read is the user's to fix (permanent), not a network failure.
      const failure =
        error instanceof ConfigError
          ? error
          : new HttpError('network', `could not prepare the request headers: ${(error as Error).message}`, {
              url: this.url,
            });
      this.#finish({ type: 'http_error', error: failure });
      throw failure;
    }
    if (this.#state !== 'starting')
      throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    this.#secrets = secrets;
    this.#requester = new Requester(this.#deps, {
      endpoint: this.#options.url,
      baseHeaders,
      secrets,
      headersTimeout: this.#options.headersTimeout,
      server: this.#name,
      env: this.#env,
      auth,
    });
    this.#state = 'open';
  }

  send(message: JsonRpcMessage): void {
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason, { server: this.#name });
    if (this.#state !== 'open') throw new UsageError('HttpTransport.send() needs start() first');
    // Serialised here, so that a message that cannot be (a BigInt, a cycle) throws to the caller.
    const body = serialize(message);
    if (channels.message.hasSubscribers) this.#publishMessage('send', message);
    if ('method' in message) {
      if ('id' in message) this.#request(message as JsonRpcRequest, body);
      else void this.#notify(message, body);
    } else {
      void this.#postQuietly(message, 'response', body);
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown({ type: 'closed' }, true);
    return this.#closing;
  }

  // ---- requests ------------------------------------------------------------------------------

  /** Starts the exchange; not async, so that nothing waits to resume when the exchange ends. */
  #request(message: JsonRpcRequest, body: string): void {
    const version = modernVersionOf(message);
    const exchange: Exchange = {
      id: message.id,
      method: message.method,
      modern: version !== undefined,
      abort: new ExchangeAbort(),
    };
    this.#exchanges.set(exchange.id, exchange);
    if (this.#sse) {
      this.#sse.post(body, message.method, exchange.abort).catch((error) => this.#fail(exchange, error));
      return;
    }
    let headers: Record<string, string>;
    if (version !== undefined) {
      this.#modernVersion = version;
      headers = this.#modernRequestHeaders(message, version);
    } else if (message.method === 'initialize') {
      // A fresh initialize starts a fresh session: no old id, no version header (digest §3.1).
      this.#session = undefined;
      headers = {};
    } else {
      headers = this.#session?.headers() ?? {};
    }
    void this.#exchange(exchange, message, headers, 0, body);
  }

  /** The headers of a modern request: routing, and the `Mcp-Param-*` a tool's schema asks for. */
  #modernRequestHeaders(message: JsonRpcRequest, version: string): Record<string, string> {
    const headers = modernHeaders(message, version);
    if (message.method === 'tools/call') {
      const bindings = this.#toolHeaders?.get(String(message.params?.name));
      if (bindings) Object.assign(headers, paramHeaders(bindings, message.params?.arguments));
    }
    return headers;
  }

  /** One POST of a request (a re-issue is another, with a new id) and the reading of its answer. */
  async #exchange(
    exchange: Exchange,
    message: JsonRpcRequest,
    headers: Record<string, string>,
    attempt: number,
    body = serialize(message),
  ): Promise<void> {
    headers.accept = ACCEPT_BOTH;
    headers['content-type'] = 'application/json';
    const init: SendInit = {
      method: 'POST',
      headers,
      body,
      signal: exchange.abort,
      mcpMethod: message.method,
      protocolVersion: this.#versionFor(message),
    };
    try {
      const requester = this.#requester!;
      const url = this.#options.url;
      // Without OAuth the dispatcher's promise is awaited here (no turn of the Requester's own).
      const first = requester.dispatchFirst(url, init);
      let response: HttpResponse;
      if (first === undefined) response = await requester.send(url, init);
      else {
        const received = requester.received(await first, url, init);
        response = received instanceof Promise ? await received : received;
      }
      const answered = this.#answer(exchange, message, response, init);
      // Awaited only while pending: a JSON answer whose body is here whole costs no turn.
      const broken = answered instanceof Promise ? await answered : answered;
      if (broken === HEADERS_STALE) {
        // The schema changed since tools/list (or was never read): the refreshed bindings, once.
        await this.#exchange(
          exchange,
          message,
          this.#modernRequestHeaders(message, modernVersionOf(message)!),
          attempt,
        );
        return;
      }
      if (!broken) return;
      if (
        exchange.modern &&
        attempt === 0 &&
        REISSUABLE.has(message.method) &&
        this.#exchanges.has(exchange.id)
      ) {
        // A modern stream is not resumable: the request is lost and must go again with a new id.
        const reissue = { ...message, id: `${String(exchange.id)}:reissue:${++this.#reissues}` };
        this.#aliases ??= new Map();
        this.#aliases.set(reissue.id, exchange.id);
        debug(
          '%s: the stream of %s broke; sending it again as %s',
          this.#name ?? 'client',
          message.method,
          reissue.id,
        );
        await this.#exchange(exchange, reissue, headers, attempt + 1);
        this.#aliases?.delete(reissue.id);
        return;
      }
      this.#fail(exchange, broken);
    } catch (error) {
      this.#fail(exchange, this.#requester!.toHttpError(error, this.#options.url, init));
    }
  }

  /** The version a request is sent under: its own `_meta`'s, `initialize`'s offer, or the session's. */
  #versionFor(message: JsonRpcRequest): string | undefined {
    const offered = message.method === 'initialize' ? message.params?.protocolVersion : undefined;
    return (
      modernVersionOf(message) ?? (typeof offered === 'string' ? offered : this.#session?.protocolVersion)
    );
  }

  /**
   * Reads the answer; gives an error when an event stream ended before the response, and
   * HEADERS_STALE when a `tools/call` met a HeaderMismatch and the tool's schema was read again.
   * The usual answer, JSON of a 2xx or 3xx, is read and delivered at once, with no async turn
   * (nothing, or a promise while its body arrives); every other answer goes to #answerOther.
   */
  #answer(
    exchange: Exchange,
    message: JsonRpcRequest,
    response: HttpResponse,
    init: SendInit,
  ): Outcome | Promise<Outcome> {
    const type = mediaType(response.headers['content-type']);
    if (response.status < 400 && type === 'application/json') {
      if (message.method === 'initialize')
        exchange.sessionId = headerString(response.headers['mcp-session-id']);
      return this.#answerJson(exchange, response, init);
    }
    return this.#answerOther(exchange, message, response, init, type);
  }

  async #answerOther(
    exchange: Exchange,
    message: JsonRpcRequest,
    response: HttpResponse,
    init: SendInit,
    type: string,
  ): Promise<Outcome> {
    const { status } = response;
    if (
      status === 404 &&
      !exchange.modern &&
      this.#session?.sessionId !== undefined &&
      message.method !== 'initialize'
    ) {
      discard(response.body);
      this.#fail(exchange, refusedForExpiredSession(status, this.#name, message.method));
      void this.#shutdown({ type: 'session_expired', status }, false);
      return;
    }
    if (status >= 400) {
      const body = await readPrefix(response.body, ERROR_BODY_BYTES);
      if (status === 401 && !hasCredentials(this.#options)) {
        const error = await this.#requester!.statusError(response, init, body);
        return void this.#fail(exchange, authorizationNeeded(error, init, this.#keyPrefix, this.#name));
      }
      if (
        type === 'application/json' &&
        exchange.modern &&
        message.method === 'tools/call' &&
        !exchange.headersRetried &&
        isHeaderMismatch(body)
      ) {
        exchange.headersRetried = true;
        if (await this.#refreshToolHeaders(message, exchange)) return HEADERS_STALE;
        if (this.#exchanges.get(exchange.id) !== exchange) return;
      }
      if (type === 'application/json' && this.#deliverJson(body, exchange, false) && !this.#pending(exchange))
        return;
      const error = await this.#requester!.statusError(response, init, body);
      if (message.method === 'initialize' && this.#options.legacySse && error.eraSignal) {
        await this.#tryLegacySse(exchange, message, error);
        return;
      }
      this.#fail(exchange, error);
      return;
    }
    if (message.method === 'initialize')
      exchange.sessionId = headerString(response.headers['mcp-session-id']);
    if (type === 'text/event-stream') {
      const state: StreamState = {};
      await this.#consume(response, state, exchange);
      if (!this.#exchanges.has(exchange.id) || exchange.abort.aborted) return;
      if (!exchange.modern && this.#session) {
        const session = this.#session;
        const resumed = await resumeStream(
          session,
          state,
          this.#streamIo(),
          () => !this.#exchanges.has(exchange.id),
          exchange.abort.signal,
        );
        if (resumed) return;
      }
      const notAgain = exchange.modern && !REISSUABLE.has(message.method);
      return new HttpError(
        'stream_broken',
        `the event stream for ${message.method} (id ${String(exchange.id)}) ended before its response${notAgain ? '; it may have run, so it is not sent again' : ''}`,
        { url: this.url, method: message.method, status },
        { server: this.#name },
      );
    }
    const error = await this.#requester!.statusError(response, init);
    this.#fail(
      exchange,
      new HttpError(
        status === 202 || status === 204 ? 'invalid_body' : 'content_type',
        status === 202 || status === 204
          ? `POST ${this.url} (${message.method}) answered ${status} with no response to the request`
          : `POST ${this.url} (${message.method}) answered ${status} with Content-Type ${JSON.stringify(type)}, neither application/json nor text/event-stream${error.bodyExcerpt ? `: ${error.bodyExcerpt}` : ''}`,
        { url: this.url, method: message.method, status, bodyExcerpt: error.bodyExcerpt },
        { server: this.#name },
      ),
    );
  }

  /**
   * A JSON answer (2xx or 3xx): read within maxMessageBytes and delivered, at once when the body is
   * here whole (the usual case: no promise, no turn), else once it has arrived. A body that is not
   * a JSON-RPC message fails the exchange; a read that fails throws (or rejects with) its HttpError.
   */
  #answerJson(exchange: Exchange, response: HttpResponse, init: SendInit): Promise<undefined> | undefined {
    let read: Buffer | Promise<Buffer>;
    try {
      read = readBounded(
        response.body,
        this.#options.maxMessageBytes,
        headerString(response.headers['content-length']),
        this.#options.bodyTimeout,
      );
    } catch (error) {
      throw bodyError(error, response, init, this.#bodyContext());
    }
    if (read instanceof Buffer) return this.#deliverBody(read, exchange, response, init);
    return (read as Promise<Buffer>).then(
      (body) => this.#deliverBody(body, exchange, response, init),
      (error: unknown) => {
        throw bodyError(error, response, init, this.#bodyContext());
      },
    );
  }

  #deliverBody(
    body: Buffer,
    exchange: Exchange,
    response: HttpResponse,
    init: SendInit,
  ): Promise<undefined> | undefined {
    const delivered = this.#deliverJson(body, exchange, true);
    if (delivered && !this.#pending(exchange)) return undefined;
    return this.#requester!.statusError(response, init, body).then((error) => {
      this.#fail(
        exchange,
        delivered ? unanswered(error, init, exchange.id, this.#name) : invalidBody(error, init, this.#name),
      );
      return undefined;
    });
  }

  /** Whether the exchange still waits for its answer. */
  #pending(exchange: Exchange): boolean {
    return this.#exchanges.get(exchange.id) === exchange;
  }

  #bodyContext() {
    return { requester: this.#requester!, bodyTimeout: this.#options.bodyTimeout, server: this.#name };
  }

  /**
   * Delivers a JSON body: one message or (2025-03-26) a batch. An error without an id is the
   * answer to this exchange. False if the body holds no JSON-RPC message.
   */
  #deliverJson(body: Buffer | string, exchange: Exchange | undefined, success: boolean): boolean {
    let value: unknown;
    try {
      // toString() with no argument is Buffer's own UTF-8 fast path (no encoding lookup).
      value = JSON.parse(typeof body === 'string' ? body : body.toString());
    } catch {
      return false;
    }
    const messages = Array.isArray(value) ? value : [value];
    let delivered = false;
    for (const item of messages) {
      if (typeof item !== 'object' || item === null) continue;
      const message = item as Record<string, unknown>;
      if (!success && !('error' in message)) continue;
      // An error the server could not tie to an id (id null or absent) answers this exchange.
      if ('error' in message && !isRequestId(message.id) && exchange) message.id = exchange.id;
      const classified = classify(message);
      if (classified.kind === 'invalid') continue;
      this.#deliver(classified.message);
      delivered = true;
    }
    return delivered;
  }

  /** Hands a server message up; a response settles its exchange first. */
  #deliver(message: JsonRpcMessage): void {
    if (this.#closeReason) return;
    if (!('method' in message) && message.id !== undefined && message.id !== null) {
      const wireId = message.id;
      const original = this.#aliases?.get(wireId);
      if (original !== undefined) message = { ...message, id: original };
      const id = original ?? wireId;
      const exchange = this.#exchanges.get(id);
      if (exchange) {
        this.#exchanges.delete(id);
        if ('result' in message) {
          if (exchange.method === 'tools/list' && exchange.modern) this.#screenTools(message.result);
          if (exchange.method === 'initialize' && !exchange.modern)
            this.#adoptSession(exchange, message.result);
        }
        if (exchange.internal) {
          exchange.internal.resolve(message);
          return;
        }
      }
    }
    if (channels.message.hasSubscribers) this.#publishMessage('receive', message);
    this.emit('message', message);
  }

  /** `--trace`: each message as JSON, every Secret header value redacted (a server may echo one). */
  #publishMessage(direction: 'send' | 'receive', message: JsonRpcMessage): void {
    const text = redact(JSON.stringify(message), this.#secrets);
    channels.message.publish({ server: this.#name, pid: undefined, direction, text });
  }

  /** After an InitializeResult: the legacy session is its id (if any) and the version it chose. */
  #adoptSession(exchange: Exchange, result: unknown): void {
    const version = (result as { protocolVersion?: unknown } | null)?.protocolVersion;
    if (typeof version === 'string') this.#session = new LegacyHttpSession(exchange.sessionId, version);
  }

  /**
   * After a HeaderMismatch on `call` (digest §2.4): reads tools/list again, with the call's own
   * `_meta`, page by page until the tool shows up (MAX_REFRESH_PAGES at most), so that its
   * `x-mcp-header` bindings are those of its current schema. The listing is the transport's own:
   * nothing of it reaches the Client. False if it failed (the server's error then stands).
   */
  async #refreshToolHeaders(call: JsonRpcRequest, exchange: Exchange): Promise<boolean> {
    const name = String(call.params?.name);
    const meta = call.params?._meta;
    let cursor: unknown;
    try {
      for (let page = 0; page < MAX_REFRESH_PAGES; page++) {
        const params: JsonObject = { ...(typeof cursor === 'string' ? { cursor } : {}), _meta: meta! };
        const answer = await this.#ownRequest('tools/list', params, exchange);
        if ('error' in answer)
          throw new Error(`tools/list answered ${JSON.stringify(answer.error).slice(0, 200)}`);
        const result = ('result' in answer ? answer.result : undefined) as
          | { tools?: Array<{ name?: unknown }>; nextCursor?: unknown }
          | undefined;
        if (result?.tools?.some((tool) => tool?.name === name)) break;
        cursor = result?.nextCursor;
        if (typeof cursor !== 'string') break;
      }
    } catch (error) {
      debug(
        '%s: tools/list after a HeaderMismatch on %s failed: %s',
        this.#name ?? 'client',
        name,
        (error as Error).message,
      );
      return false;
    }
    debug(
      '%s: HeaderMismatch on tools/call %s: sending it again with the headers of its current schema',
      this.#name ?? 'client',
      name,
    );
    return this.#exchanges.get(exchange.id) === exchange;
  }

  /** A request of the transport's own, on behalf of `parent` (aborted with it), answered here. */
  #ownRequest(method: string, params: JsonObject, parent: Exchange): Promise<JsonRpcMessage> {
    const message: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: `${String(parent.id)}:${method}:${++this.#reissues}`,
      method,
      params,
    };
    return new Promise<JsonRpcMessage>((resolve, reject) => {
      const own: Exchange = {
        id: message.id,
        method,
        modern: true,
        abort: new ExchangeAbort(),
      };
      const abort = () => this.#fail(own, new Error('the request it was made for ended'));
      parent.abort.once('abort', abort);
      const settle = () => parent.abort.removeListener('abort', abort);
      own.internal = {
        resolve: (answer) => {
          settle();
          resolve(answer);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      this.#exchanges.set(own.id, own);
      void this.#exchange(own, message, modernHeaders(message, modernVersionOf(message)!), 0);
    });
  }

  /** Leaves out tools whose x-mcp-header annotations are invalid, and remembers the rest's headers. */
  #screenTools(result: unknown): void {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(tools)) return;
    const kept = tools.filter((tool: { name?: unknown; inputSchema?: unknown }) => {
      const name = String(tool?.name);
      const check = checkToolHeaders(tool?.inputSchema);
      if (check.ok) {
        if (check.bindings.length > 0) {
          this.#toolHeaders ??= new Map();
          this.#toolHeaders.set(name, check.bindings);
        } else this.#toolHeaders?.delete(name);
        return true;
      }
      this.#toolHeaders?.delete(name);
      if (channels.toolRejected.hasSubscribers)
        channels.toolRejected.publish({ server: this.#name, tool: name, reason: check.reason });
      process.emitWarning(
        `${this.#name ? `${this.#name}: ` : ''}tool ${JSON.stringify(name)} left out of tools/list: ${check.reason}`,
        {
          code: 'CONDUIT_INVALID_TOOL_HEADER',
        },
      );
      return false;
    });
    (result as { tools: unknown[] }).tools = kept;
  }

  /** Reads an event stream to its end; resolves with how many events it carried. */
  #consume(response: HttpResponse, state: StreamState, exchange?: Exchange): Promise<number> {
    let events = 0;
    const body = response.body as Readable;
    const reader = new SseReader(this.#deps!.createParser, this.#options.maxMessageBytes, {
      onEvent: (event) => {
        events += 1;
        if (event.id !== undefined) state.lastEventId = event.id;
        if ((event.event ?? 'message') !== 'message' || event.data === '') return;
        if (!this.#deliverJson(event.data, exchange, true)) {
          debug(
            '%s: dropped an SSE event that is not JSON-RPC (%d bytes)',
            this.#name ?? 'client',
            event.data.length,
          );
        }
      },
      onRetry: (ms) => {
        state.retry = ms;
      },
      onTooLarge: (limit) => {
        discard(body);
        const error = new HttpError(
          'message_too_large',
          `${displayUrl(response.url)}: an SSE event is larger than maxMessageBytes (${limit} bytes)`,
          { url: displayUrl(response.url), method: exchange?.method, status: response.status, limit },
          { server: this.#name },
        );
        if (exchange) this.#fail(exchange, error);
        else debug('%s: %s', this.#name ?? 'client', error.message);
      },
    });
    return new Promise<number>((resolve) => {
      body.on('data', (chunk: Buffer) => reader.push(chunk));
      body.once('end', () => resolve(events));
      body.once('error', () => resolve(events));
      body.once('close', () => resolve(events));
    });
  }

  // ---- notifications and responses -----------------------------------------------------------

  async #notify(
    message: JsonRpcMessage & { method: string; params?: JsonObject },
    body: string,
  ): Promise<void> {
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      const exchange = isRequestId(requestId) ? this.#exchanges.get(requestId) : undefined;
      if (exchange) {
        this.#exchanges.delete(exchange.id);
        exchange.abort.abort(new Error('cancelled'));
      }
      // Modern: closing the stream is the cancellation; nothing is POSTed (digest §2.9).
      if (exchange?.modern || (!this.#session && !this.#sse && this.#modernVersion)) return;
    }
    await this.#postQuietly(message, 'notification', body);
    if (message.method === 'notifications/initialized' && this.#session && !this.#sse) {
      void runStandaloneStream(this.#session, this.#streamIo(), this.#stopSignal);
    }
  }

  /** POSTs a notification or a response to a server request; failures are logged, none is fatal but 404. */
  async #postQuietly(message: JsonRpcMessage, what: string, body: string): Promise<void> {
    if (this.#sse) {
      await this.#sse
        .post(body, 'method' in message ? message.method : 'a response', this.#stopSignal)
        .catch((error: Error) =>
          debug('%s: %s POST failed: %s', this.#name ?? 'client', what, error.message),
        );
      return;
    }
    const method = 'method' in message ? message.method : undefined;
    let headers: Record<string, string>;
    if (this.#session) headers = this.#session.headers();
    else if (this.#modernVersion && method)
      headers = { 'mcp-protocol-version': this.#modernVersion, 'mcp-method': method };
    else headers = {};
    headers.accept = ACCEPT_BOTH;
    headers['content-type'] = 'application/json';
    const init: SendInit = {
      method: 'POST',
      headers,
      body,
      signal: this.#stopSignal,
      mcpMethod: method ?? 'a response',
    };
    try {
      const response = await this.#requester!.send(this.#options.url, init);
      if (response.status === 404 && this.#session?.sessionId !== undefined) {
        discard(response.body);
        void this.#shutdown({ type: 'session_expired', status: 404 }, false);
        return;
      }
      if (response.status >= 400) {
        const error = await this.#requester!.statusError(response, init);
        debug('%s: %s', this.#name ?? 'client', error.message);
        return;
      }
      drain(response.body);
    } catch (error) {
      if (!this.#stopSignal.aborted)
        debug('%s: %s POST failed: %s', this.#name ?? 'client', what, (error as Error).message);
    }
  }

  #streamIo(): StreamIo {
    return {
      name: this.#name ?? 'client',
      get: (headers, signal) =>
        this.#requester!.send(this.#options.url, {
          method: 'GET',
          headers,
          signal: AbortSignal.any([signal, this.#stopSignal]),
          mcpMethod: 'GET stream',
        }),
      consume: (response, state) => this.#consume(response, state),
      expired: (status) => void this.#shutdown({ type: 'session_expired', status }, false),
    };
  }

  // ---- HTTP+SSE (2024-11-05) fallback --------------------------------------------------------

  async #tryLegacySse(exchange: Exchange, message: JsonRpcRequest, original: HttpError): Promise<void> {
    this.#eraStep(
      `initialize answered HTTP ${original.details.status ?? original.kind}: trying the 2024-11-05 HTTP+SSE transport (GET ${this.url})`,
    );
    try {
      this.#sse = await openLegacySse({
        url: this.#options.url,
        requester: this.#requester!,
        createParser: this.#deps!.createParser,
        maxMessageBytes: this.#options.maxMessageBytes,
        endpointTimeout: this.#options.headersTimeout,
        signal: this.#stopSignal,
        name: this.#name,
        deliver: (delivered) => this.#deliver(delivered),
        closed: (error) => void this.#shutdown({ type: 'http_error', error }, false),
      });
    } catch (error) {
      this.#eraStep(`no HTTP+SSE endpoint either: ${(error as Error).message}`);
      if (error instanceof HttpError && error.kind === 'foreign_endpoint') {
        this.#fail(exchange, error);
        void this.#shutdown({ type: 'http_error', error }, false);
        return;
      }
      this.#fail(exchange, error instanceof HttpError && error.kind === 'redirect' ? error : original);
      return;
    }
    this.#eraStep(
      `the endpoint speaks the 2024-11-05 HTTP+SSE transport; messages go to ${this.#sse.endpoint}`,
    );
    await this.#sse
      .post(serialize(message), message.method, exchange.abort)
      .catch((error) => this.#fail(exchange, error));
  }

  /** The wire fallback is a step of era detection: debug, and `conduit-mcp:client:era`. */
  #eraStep(detail: string): void {
    debug('%s: %s', this.#name ?? 'client', detail);
    if (channels.era.hasSubscribers) channels.era.publish({ server: this.#name, step: 'http+sse', detail });
  }

  // ---- failure and shutdown ------------------------------------------------------------------

  #fail(exchange: Exchange, error: Error): void {
    if (this.#exchanges.get(exchange.id) !== exchange) return;
    this.#exchanges.delete(exchange.id);
    exchange.abort.abort(error);
    if (exchange.internal) {
      exchange.internal.reject(error);
      return;
    }
    if (this.#closeReason) return;
    debug('%s: %s failed: %s', this.#name ?? 'client', exchange.method, error.message);
    this.emit('requestFailed', exchange.id, error);
  }

  async #shutdown(reason: CloseReason, endSession: boolean): Promise<void> {
    if (this.#closeReason) return;
    const session = this.#session;
    this.#closeReason = reason;
    this.#stopController?.abort(new Error('the transport closed'));
    for (const exchange of this.#exchanges.values()) {
      exchange.abort.abort(new Error('the transport closed'));
      exchange.internal?.reject(new Error('the transport closed'));
    }
    this.#exchanges.clear();
    this.#sse?.close();
    if (endSession && session?.sessionId !== undefined && this.#requester) {
      try {
        const response = await this.#requester.send(this.#options.url, {
          method: 'DELETE',
          headers: session.headers(),
          signal: AbortSignal.timeout(DELETE_TIMEOUT_MS),
          mcpMethod: 'end of session',
        });
        drain(response.body);
      } catch (error) {
        debug('%s: DELETE of the session failed: %s', this.#name ?? 'client', (error as Error).message);
      }
    }
    await this.#requester?.close();
    this.#finish(reason);
  }

  #finish(reason: CloseReason): void {
    this.#closeReason ??= reason;
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    if (debug.enabled)
      debug('%s: HTTP transport closed (%s)', this.#name ?? 'client', describeCloseReason(reason));
    if (channels.close.hasSubscribers) channels.close.publish({ server: this.#name, pid: undefined, reason });
    this.emit('close', reason);
  }
}
