import { channels, debug } from '../../diagnostics.js';
import {
  ConfigError,
  ConnectionClosedError,
  describeCloseReason,
  HttpError,
  UsageError,
} from '../../errors.js';
import { isRequestId } from '../../jsonrpc/classify.js';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../../jsonrpc/messages.js';
import { serialize } from '../../jsonrpc/serialize.js';
import { SafeEmitter } from '../../user-code.js';
import { type CloseReason, redact, type Transport, type TransportEvents } from '../transport.js';
import { type HttpAuthorization, loadAuthorization } from './authorization.js';
import { discard, jsonRpcMessages } from './body.js';
import { type Exchange, type ExchangeHost, postQuietly, postRequest } from './exchange.js';
import { ExchangeAbort } from './exchange-abort.js';
import { modernHeaders, modernVersionOf, ToolHeaderBindings } from './headers.js';
import { endSession, LegacyHttpSession, runStandaloneStream, type StreamIo } from './legacy-session.js';
import { fallBackToLegacySse, type LegacySseChannel } from './legacy-sse.js';
import { type HttpOptions, type ResolvedHttpOptions, resolveHttpOptions, revealHeaders } from './options.js';
import { displayUrl, type HttpDeps, type HttpResponse, loadHttpDeps, Requester } from './requester.js';
import { readEventStream, type StreamState } from './sse.js';

/** Where a transport runs: what a Client tells the transports it makes. */
export interface HttpTransportContext {
  /** The server's name, for messages and diagnostics. */
  readonly name?: string;
  /** The key the options were given under (e.g. `transport`), for the option keys errors name. */
  readonly keyPrefix?: string;
  /** The environment whose proxy variables apply. @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Told while the OAuth flow waits for the user's consent (TransportRuntime.personWaiting). */
  readonly personWaiting?: (waiting: boolean) => void;
}

type State = 'new' | 'starting' | 'open' | 'closed';

/**
 * Streamable HTTP, both eras, over one keep-alive pool for the endpoint's origin. Each message
 * is its own POST. What era a message belongs to is read from the message itself: a modern one
 * carries its version in `_meta` (and gets `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*`); `initialize` starts a legacy session, whose id and version (told through
 * setProtocolVersion) go on every later request. Answers may be JSON or event streams; every body
 * and event is capped while it arrives. A request that fails without a JSON-RPC answer settles
 * alone through `'requestFailed'`.
 */
export class HttpTransport extends SafeEmitter<TransportEvents> implements Transport {
  readonly kind = 'http';
  readonly #options: ResolvedHttpOptions;
  readonly #name: string | undefined;
  /** The option key prefix with its dot (`transport.`), or empty. */
  readonly #keyPrefix: string;
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #personWaiting: ((waiting: boolean) => void) | undefined;
  #state: State = 'new';
  #closeReason: CloseReason | undefined;
  #closing: Promise<void> | undefined;
  #deps: HttpDeps | undefined;
  #requester: Requester | undefined;
  #host: ExchangeHost | undefined;
  readonly #exchanges = new Map<RequestId, Exchange>();
  /** Aborts every background stream and notification POST at close. */
  readonly #stop = new AbortController();
  /** The `MCP-Session-Id` of the answer to the last `initialize`, until the session is set up. */
  #issuedSessionId: string | undefined;
  #session: LegacyHttpSession | undefined;
  #sse: LegacySseChannel | undefined;
  #modernVersion: string | undefined;
  readonly #toolHeaders = new ToolHeaderBindings();
  /** The Secret header values, as sent: redacted from what `conduit-mcp:transport:message` shows. */
  #secrets: readonly string[] = [];

  /**
   * Checks the options and starts nothing: `start()` reads the header Secrets and loads the HTTP
   * modules; each message is sent by `send()`.
   *
   * @throws {@link ConfigError} when an option is missing or invalid (e.g. a URL that is not https: to
   * a host that is not loopback); `key` names it.
   */
  constructor(options: HttpOptions, context: HttpTransportContext = {}) {
    super();
    this.#options = resolveHttpOptions(options, context.keyPrefix ?? '');
    this.#name = context.name;
    this.#keyPrefix = context.keyPrefix ? `${context.keyPrefix}.` : '';
    this.#env = context.env;
    this.#personWaiting = context.personWaiting;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  /** The endpoint, without its query. */
  get url(): string {
    return displayUrl(this.#options.url);
  }

  async start(): Promise<void> {
    if (this.#state !== 'new') throw new UsageError('an HttpTransport can be started only once');
    this.#state = 'starting';
    let revealed: { headers: Record<string, string>; secrets: string[] };
    let auth: HttpAuthorization | undefined;
    try {
      revealed = await revealHeaders(this.#options, this.#keyPrefix, this.#name);
      this.#deps = await loadHttpDeps();
      if (this.#options.oauth) {
        auth = await loadAuthorization(
          this.#options.url,
          this.#options.oauth,
          this.#name,
          (waiting) => this.#personWaiting?.(waiting),
          this.#stop.signal,
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
    this.#secrets = revealed.secrets;
    this.#requester = new Requester(this.#deps, {
      endpoint: this.#options.url,
      baseHeaders: revealed.headers,
      secrets: revealed.secrets,
      headersTimeout: this.#options.headersTimeout,
      server: this.#name,
      env: this.#env,
      auth,
    });
    this.#host = this.#exchangeHost(this.#requester);
    this.#state = 'open';
  }

  send(message: JsonRpcMessage): void {
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason, { server: this.#name });
    if (this.#state !== 'open') throw new UsageError('HttpTransport.send() needs start() first');
    // Serialised here, so that a message that cannot be (a BigInt, a cycle) throws to the caller.
    const body = serialize(message);
    if (channels.message.hasSubscribers) this.#publishMessage('send', message);
    if (!('method' in message)) void postQuietly(this.#host!, message, body, this.#log);
    else if ('id' in message) this.#request(message as JsonRpcRequest, body);
    else void this.#notify(message, body);
  }

  /**
   * The version the legacy `initialize` handshake chose: with the session id its answer carried,
   * the legacy session, whose headers go on every later request.
   */
  setProtocolVersion(version: string): void {
    this.#session = new LegacyHttpSession(this.#issuedSessionId, version);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown({ type: 'closed' }, true);
    return this.#closing;
  }

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
      headers = modernHeaders(message, version);
      if (message.method === 'tools/call')
        Object.assign(headers, this.#toolHeaders.headersFor(message.params));
    } else if (message.method === 'initialize') {
      // A fresh initialize starts a fresh session: no old id, no version header (digest §3.1).
      this.#session = undefined;
      this.#issuedSessionId = undefined;
      headers = {};
    } else {
      headers = this.#session?.headers() ?? {};
    }
    void postRequest(this.#host!, exchange, message, headers, body);
  }

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
    await postQuietly(this.#host!, message, body, this.#log);
    if (message.method === 'notifications/initialized' && this.#session && !this.#sse) {
      void runStandaloneStream(this.#session, this.#streamIo(), this.#stop.signal);
    }
  }

  /** What the exchanges of this transport read of it. */
  #exchangeHost(requester: Requester): ExchangeHost {
    return {
      options: this.#options,
      requester,
      name: this.#name,
      keyPrefix: this.#keyPrefix,
      session: () => this.#session,
      sse: () => this.#sse,
      modernVersion: () => this.#modernVersion,
      stopSignal: () => this.#stop.signal,
      sessionIssued: (id) => {
        this.#issuedSessionId = id;
      },
      isPending: (exchange) => this.#exchanges.get(exchange.id) === exchange,
      deliverJson: (body, exchange, success) => this.#deliverJson(body, exchange, success),
      consume: (response, state, exchange) => this.#consume(response, state, exchange),
      streamIo: () => this.#streamIo(),
      fail: (exchange, error) => this.#fail(exchange, error),
      fallBack: (exchange, message, error) => this.#fallBack(exchange, message, error),
    };
  }

  #streamIo(): StreamIo {
    return {
      name: this.#name ?? 'client',
      get: (headers, signal) =>
        this.#requester!.send(this.#options.url, {
          method: 'GET',
          headers,
          signal: AbortSignal.any([signal, this.#stop.signal]),
          mcpMethod: 'GET stream',
        }),
      consume: (response, state) => this.#consume(response, state),
      expired: (status) => void this.#shutdown({ type: 'session_expired', status }, false),
    };
  }

  /** `initialize` was refused: tries the 2024-11-05 HTTP+SSE transport, and sends it there. */
  async #fallBack(exchange: Exchange, message: JsonRpcRequest, refused: HttpError): Promise<void> {
    const opened = await fallBackToLegacySse(
      {
        url: this.#options.url,
        requester: this.#requester!,
        createParser: this.#deps!.createParser,
        maxMessageBytes: this.#options.maxMessageBytes,
        endpointTimeout: this.#options.headersTimeout,
        signal: this.#stop.signal,
        name: this.#name,
        deliver: (delivered) => this.#deliver(delivered),
        closed: (error) => void this.#shutdown({ type: 'http_error', error }, false),
      },
      refused,
    );
    if (opened instanceof HttpError) {
      this.#fail(exchange, opened);
      if (opened.kind === 'foreign_endpoint')
        void this.#shutdown({ type: 'http_error', error: opened }, false);
      return;
    }
    this.#sse = opened;
    await opened
      .post(serialize(message), message.method, exchange.abort)
      .catch((error) => this.#fail(exchange, error));
  }

  // ---- what the server sends ---------------------------------------------------------------------

  /** Reads an event stream to its end, handing up its messages; resolves with how many events it carried. */
  #consume(response: HttpResponse, state: StreamState, exchange?: Exchange): Promise<number> {
    const { body } = response;
    return readEventStream(
      body,
      { createParser: this.#deps!.createParser, maxEventBytes: this.#options.maxMessageBytes, state },
      {
        onMessage: (data) => {
          if (!this.#deliverJson(data, exchange, true))
            debug(
              '%s: dropped an SSE event that is not JSON-RPC (%d bytes)',
              this.#name ?? 'client',
              data.length,
            );
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
      },
    );
  }

  /** Hands up the messages of a JSON body (see jsonRpcMessages); false if it holds none. */
  #deliverJson(body: Buffer | string, exchange: Exchange | undefined, success: boolean): boolean {
    const messages = jsonRpcMessages(body, exchange?.id, success);
    for (const message of messages) this.#deliver(message);
    return messages.length > 0;
  }

  /** Hands a server message up; a response settles its exchange first. */
  #deliver(message: JsonRpcMessage): void {
    if (this.#closeReason) return;
    if (!('method' in message) && message.id !== undefined && message.id !== null) {
      const exchange = this.#exchanges.get(message.id);
      if (exchange) {
        this.#exchanges.delete(message.id);
        // The x-mcp-header bindings of the tools listed, for the Mcp-Param-* of their calls.
        if (exchange.modern && exchange.method === 'tools/list' && 'result' in message)
          this.#toolHeaders.learn(message.result);
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

  readonly #log = (text: string): void => debug('%s: %s', this.#name ?? 'client', text);

  // ---- failure and shutdown ------------------------------------------------------------------

  #fail(exchange: Exchange, error: Error): void {
    if (this.#exchanges.get(exchange.id) !== exchange) return;
    this.#exchanges.delete(exchange.id);
    exchange.abort.abort(error);
    if (this.#closeReason) return;
    debug('%s: %s failed: %s', this.#name ?? 'client', exchange.method, error.message);
    this.emit('requestFailed', exchange.id, error);
  }

  async #shutdown(reason: CloseReason, endsSession: boolean): Promise<void> {
    if (this.#closeReason) return;
    const session = this.#session;
    this.#closeReason = reason;
    this.#stop.abort(new Error('the transport closed'));
    for (const exchange of this.#exchanges.values()) exchange.abort.abort(new Error('the transport closed'));
    this.#exchanges.clear();
    this.#sse?.close();
    if (endsSession && session && this.#requester)
      await endSession(session, this.#requester, this.#options.url, this.#name ?? 'client');
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
