import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AuthHeaders } from '../../auth/provider.js';
import { channels } from '../../diagnostics.js';
import { AuthError, HttpError } from '../../errors.js';
import type { HttpAuthorization } from './authorization.js';
import { drain, excerpt, headerString, mediaType, readPrefix } from './body.js';
import type { ExchangeAbort } from './exchange-abort.js';
import type { CreateParser } from './sse.js';

type Undici = typeof import('undici');

/** The HTTP libraries, loaded on first use so that a stdio-only program never loads them. */
export interface HttpDeps {
  readonly undici: Undici;
  readonly createParser: CreateParser;
}

let loading: Promise<HttpDeps> | undefined;

export function loadHttpDeps(): Promise<HttpDeps> {
  loading ??= Promise.all([import('undici'), import('eventsource-parser')]).then(([undici, parser]) => ({
    undici,
    createParser: parser.createParser as CreateParser,
  }));
  return loading;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Readable;
  readonly url: URL;
}

export interface SendInit {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal: AbortSignal | ExchangeAbort;
  /** The JSON-RPC method, for errors and telemetry. */
  readonly mcpMethod?: string;
  /** The protocol version in use, for a 2025-03-26 server's authorization discovery. */
  readonly protocolVersion?: string;
}

/** Same-origin redirects followed before giving up. */
const MAX_REDIRECTS = 5;

/** A redirect to follow: 3xx but 304 (Not Modified, which is an answer). */
const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;

/**
 * The variables that can put EnvHttpProxyAgent's proxy in the way of an endpoint, by its scheme:
 * `http:` requests go through HTTP_PROXY only; `https:` ones through HTTPS_PROXY, or HTTP_PROXY
 * without it. A transport sends to its endpoint's origin only, so nothing else applies.
 */
const PROXY_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  'http:': ['HTTP_PROXY', 'http_proxy'],
  'https:': ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'],
};

/** A URL for messages: origin and path, never the query (it may hold a key). */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * One keep-alive connection pool for the endpoint's origin (through the proxy that HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY name, if any). Sends one request at a time per call, follows redirects
 * only within the origin, and turns every failure into an HttpError that names no credential.
 */
export class Requester {
  readonly #dispatcher: Dispatcher;
  readonly #endpoint: URL;
  readonly #origin: string;
  /** The endpoint's path and query, as undici wants them: read once (each URL getter crosses into C++). */
  readonly #endpointPath: string;
  readonly #baseHeaders: Record<string, string>;
  readonly #hasBaseHeaders: boolean;
  readonly #headersTimeout: number;
  readonly #server: string | undefined;
  readonly #secrets: readonly string[];
  readonly #auth: HttpAuthorization | undefined;

  constructor(
    deps: HttpDeps,
    options: {
      /** The MCP endpoint: its origin is the pool's, and the only one credentials go to. */
      endpoint: URL;
      baseHeaders: Record<string, string>;
      secrets: readonly string[];
      headersTimeout: number;
      server?: string;
      env?: NodeJS.ProcessEnv;
      auth?: HttpAuthorization | undefined;
    },
  ) {
    const endpoint = options.endpoint;
    this.#endpoint = endpoint;
    this.#origin = endpoint.origin;
    this.#endpointPath = endpoint.pathname + endpoint.search;
    this.#baseHeaders = options.baseHeaders;
    this.#hasBaseHeaders = Object.keys(options.baseHeaders).length > 0;
    this.#headersTimeout = options.headersTimeout;
    this.#server = options.server;
    this.#secrets = options.secrets;
    this.#auth = options.auth;
    const env = options.env ?? process.env;
    // Without a proxy, the origin's own Pool: every request of a transport goes to its endpoint's
    // origin (redirects elsewhere are refused, #dispatch checks).
    this.#dispatcher = (PROXY_VARIABLES[endpoint.protocol] ?? []).some((name) => env[name])
      ? new deps.undici.EnvHttpProxyAgent({
          headersTimeout: options.headersTimeout,
          bodyTimeout: 0,
          httpProxy: env.HTTP_PROXY ?? env.http_proxy,
          httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
          noProxy: env.NO_PROXY ?? env.no_proxy,
        })
      : // Its timeouts are given with each request (#dispatch), which undici reads before a pool's.
        new deps.undici.Pool(this.#origin);
  }

  /** Values cut out of any quoted body: the Secrets of the headers, and every OAuth credential. */
  get secrets(): readonly string[] {
    return this.#auth ? [...this.#secrets, ...this.#auth.secrets()] : this.#secrets;
  }

  /**
   * Sends one request; resolves with the final (non-redirect) response. With OAuth, the request
   * carries the token, and a 401 (or 403 insufficient_scope) runs the flow and sends it again,
   * a bounded number of times (the provider's MAX_AUTH_ATTEMPTS).
   */
  send(url: URL, init: SendInit): Promise<HttpResponse> {
    return this.#auth ? this.#sendAuthorized(url, init, this.#auth) : this.#follow(url, init, undefined);
  }

  async #sendAuthorized(url: URL, init: SendInit, auth: HttpAuthorization): Promise<HttpResponse> {
    const answer = await auth.send(
      async (authorization, reprove) => {
        const response = await this.#follow(url, init, authorization, reprove);
        return {
          response,
          status: response.status,
          wwwAuthenticate: response.headers['www-authenticate'],
          dpopNonce: headerString(response.headers['dpop-nonce']),
          discard: () => drain(response.body),
        };
      },
      { method: init.method, url },
      init.protocolVersion,
    );
    return answer.response;
  }

  /**
   * One request and its same-origin redirects; the `authorization` headers go to this origin
   * only, with a new DPoP proof (`reprove`) for each hop: a proof names one URL and is used once.
   */
  async #follow(
    url: URL,
    init: SendInit,
    authorization: AuthHeaders | undefined,
    reprove?: (url: URL) => Promise<AuthHeaders | undefined>,
  ): Promise<HttpResponse> {
    let target = url;
    for (let hop = 0; ; hop++) {
      let answer: Dispatcher.ResponseData;
      try {
        answer = await this.#dispatch(
          target,
          init,
          authorization !== undefined && target.origin === this.#origin ? authorization : undefined,
        );
      } catch (error) {
        throw this.toHttpError(error, target, init);
      }
      const response = this.#response(answer, target, init);
      if (!isRedirect(response.status)) return response;
      target = this.#redirectTarget(response, init, hop);
      if (authorization?.dpop && reprove) authorization = await reprove(target);
    }
  }

  #response(answer: Dispatcher.ResponseData, url: URL, init: SendInit): HttpResponse {
    const status = answer.statusCode;
    if (channels.http.hasSubscribers) {
      channels.http.publish({
        server: this.#server,
        method: init.method,
        url: displayUrl(url),
        mcpMethod: init.mcpMethod,
        status,
      });
    }
    return { status, headers: answer.headers, body: answer.body as unknown as Readable, url };
  }

  /** Where a redirect (the `hop`-th) may be followed; throws the HttpError of one that may not. */
  #redirectTarget(response: HttpResponse, init: SendInit, hop: number): URL {
    const { status, url: target } = response;
    const location = headerString(response.headers.location);
    drain(response.body);
    const next = location && URL.canParse(location, target.href) ? new URL(location, target) : undefined;
    const method = init.method;
    const keepsMethod = status === 307 || status === 308 || method === 'GET';
    let problem: string;
    if (!next) problem = `answered ${status} without a usable Location`;
    else if (next.origin !== this.#origin)
      problem = `was redirected (${status}) to another origin, ${next.origin}; not followed, so no header left ${this.#origin}`;
    else if (!keepsMethod || hop + 1 >= MAX_REDIRECTS)
      problem = `was redirected (${status}) ${keepsMethod ? `more than ${MAX_REDIRECTS} times` : 'with a change of method'}; not followed`;
    else return next;
    throw this.#error('redirect', `${method} ${displayUrl(target)} ${problem}`, target, init, status);
  }

  /** Hands one request to the pool (throws, for #follow to turn into an HttpError, if it cannot). */
  #dispatch(
    url: URL,
    init: SendInit,
    authorization: AuthHeaders | undefined,
  ): Promise<Dispatcher.ResponseData> {
    // The pool serves the endpoint's origin only: anything else would reach the wrong host.
    if (url !== this.#endpoint && url.origin !== this.#origin) {
      throw this.#error(
        'redirect',
        `${init.method} ${displayUrl(url)}: not the endpoint's origin (${this.#origin}); nothing is sent to another origin`,
        url,
        init,
      );
    }
    let headers = init.headers;
    if (this.#hasBaseHeaders || authorization !== undefined) {
      headers = { ...this.#baseHeaders, ...headers };
      if (authorization !== undefined) Object.assign(headers, authorization);
    }
    return this.#dispatcher.request({
      origin: this.#origin,
      path: url === this.#endpoint ? this.#endpointPath : url.pathname + url.search,
      method: init.method,
      headers,
      body: init.body,
      signal: init.signal as AbortSignal,
      headersTimeout: this.#headersTimeout,
      bodyTimeout: 0,
    });
  }

  /** An undici (or stream) failure as an HttpError; an abort stays an abort. */
  toHttpError(error: unknown, url: URL, init: Pick<SendInit, 'method' | 'mcpMethod' | 'signal'>): Error {
    if (error instanceof HttpError || error instanceof AuthError) return error;
    if (init.signal.aborted)
      return init.signal.reason instanceof Error ? init.signal.reason : (error as Error);
    const code = (error as { code?: string }).code;
    const what = `${init.method} ${displayUrl(url)}${init.mcpMethod ? ` (${init.mcpMethod})` : ''}`;
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      return this.#error(
        'timeout',
        `${what}: no response headers within ${this.#headersTimeout} ms`,
        url,
        init,
        undefined,
        error,
      );
    }
    const reason = (error as Error).message || code || 'unknown error';
    return this.#error('network', `${what} failed: ${reason}`, url, init, undefined, error);
  }

  /** An HttpError for an answer with an error status, quoting a little of its body. */
  async statusError(
    response: HttpResponse,
    init: Pick<SendInit, 'method' | 'mcpMethod'>,
    body?: Buffer,
  ): Promise<HttpError> {
    const text = body ?? (await readPrefix(response.body));
    const quote = excerpt(text, mediaType(response.headers['content-type']), this.secrets);
    const what = `${init.method} ${displayUrl(response.url)}${init.mcpMethod ? ` (${init.mcpMethod})` : ''}`;
    return new HttpError(
      'status',
      `${what} answered HTTP ${response.status}${quote ? `: ${quote}` : ''}`,
      { url: displayUrl(response.url), method: init.mcpMethod, status: response.status, bodyExcerpt: quote },
      { server: this.#server },
    );
  }

  #error(
    kind: HttpError['kind'],
    message: string,
    url: URL,
    init: Pick<SendInit, 'mcpMethod'>,
    status?: number,
    cause?: unknown,
  ): HttpError {
    return new HttpError(
      kind,
      message,
      { url: displayUrl(url), method: init.mcpMethod, status },
      { server: this.#server, cause },
    );
  }

  /** Closes the pool: idle keep-alive sockets go at once, open streams are destroyed. */
  async close(): Promise<void> {
    await this.#dispatcher.destroy(new Error('the HTTP transport closed')).catch(() => {});
  }
}
