import type { Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { channels } from '../diagnostics.js';
import {
  type Attributes,
  type AttributeValue,
  ERROR_TYPE,
  networkAttributes,
  SERVER_ADDRESS,
  SERVER_NAME,
  SERVER_PORT,
} from './attributes.js';

type OpenTelemetryApi = typeof import('@opentelemetry/api');

// The OpenTelemetry HTTP conventions' names, and this library's for what OAuth adds.
/** The HTTP method of an OAuth exchange. */
export const HTTP_REQUEST_METHOD = 'http.request.method';
/** The exchange's URL: origin and path, never the query. */
export const URL_FULL = 'url.full';
/** The HTTP status the authorization or resource server answered. */
export const HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
/** Which exchange: `resource_metadata`, `server_metadata`, `registration`, `token`, `revocation`. */
export const OAUTH_STEP = 'conduit_mcp.oauth.step';
/** A token request's `grant_type` (`authorization_code`, `refresh_token`, a URN...). */
export const OAUTH_GRANT_TYPE = 'conduit_mcp.oauth.grant_type';
/** True on the token request repeated with the nonce a DPoP refusal gave (RFC 9449 §8). */
export const OAUTH_DPOP_NONCE_RETRY = 'conduit_mcp.oauth.dpop_nonce_retry';

// The optional peer's types stay out of every exported signature (see load.ts): the parents are
// OpenTelemetry spans and span contexts, typed `unknown` where the declarations show them.
/** Where one client's OAuth spans and events go, as its Tracing knows at the moment. */
export interface OAuthParents {
  /** The span (an OpenTelemetry `Span`) of the connection attempt under way, if one is. */
  attempt(): unknown;
  /** The span (a `Span`) of this client's request whose context is active, if it is one. */
  request(): unknown;
  /** The first connect's `SpanContext`, that an exchange outside any attempt and request links to. */
  connected(): unknown;
}

/** A `request` message of `conduit-mcp:auth` (see src/auth/exchange.ts). */
interface ExchangeMessage {
  readonly step: string;
  readonly method: string;
  readonly url: string;
  readonly startTime: number;
  readonly duration: number;
  readonly status?: number;
  readonly error?: string;
  readonly grantType?: string;
  readonly retry?: boolean;
}

/**
 * One client's OAuth, from the `conduit-mcp:auth` channel: each HTTP exchange a CLIENT span with
 * its own start and end, the other messages (discovered, registered, authorized, refreshed,
 * failed) events. Both go under the attempt under way, else under the active request of this
 * client; an exchange outside both is a root span linked to the first connect's, an event there
 * is dropped (it has no span to go on).
 */
export class OAuthSpans {
  readonly #api: OpenTelemetryApi;
  readonly #tracer: Tracer;
  readonly #server: string;
  readonly #endpoint: string | undefined;
  readonly #parents: OAuthParents;
  #listening = false;
  #closed = false;
  readonly #onMessage = (message: unknown) => this.#record(message as Record<string, unknown>);

  /** `client`: the messages recorded are those naming its server and its endpoint. */
  constructor(
    api: unknown,
    tracer: unknown,
    client: { server: string; endpoint: string | undefined },
    parents: OAuthParents,
  ) {
    this.#api = api as OpenTelemetryApi;
    this.#tracer = tracer as Tracer;
    this.#server = client.server;
    this.#endpoint = client.endpoint;
    this.#parents = parents;
  }

  /** Starts listening (once): from the first attempt until close, so that a refresh between requests is seen too. */
  listen(): void {
    if (this.#listening || this.#closed) return;
    this.#listening = true;
    channels.auth.subscribe(this.#onMessage);
  }

  /** Stops listening for good (the client is closed). */
  close(): void {
    this.#closed = true;
    if (this.#listening) channels.auth.unsubscribe(this.#onMessage);
    this.#listening = false;
  }

  #record(message: Record<string, unknown>): void {
    const { server, endpoint, event, ...details } = message;
    if (server !== this.#server || endpoint !== this.#endpoint) return;
    const parent = (this.#parents.attempt() ?? this.#parents.request()) as Span | undefined;
    if (event === 'request') this.#exchange(details as unknown as ExchangeMessage, parent);
    else parent?.addEvent(`oauth ${String(event)}`, eventAttributes(details));
  }

  #exchange(exchange: ExchangeMessage, parent: Span | undefined): void {
    const api = this.#api;
    const attributes: Attributes = {
      [SERVER_NAME]: this.#server,
      [OAUTH_STEP]: exchange.step,
      [HTTP_REQUEST_METHOD]: exchange.method,
      [URL_FULL]: exchange.url,
    };
    const network = networkAttributes({ type: 'http', url: exchange.url });
    attributes[SERVER_ADDRESS] = network[SERVER_ADDRESS]!;
    attributes[SERVER_PORT] = network[SERVER_PORT]!;
    if (exchange.grantType !== undefined) attributes[OAUTH_GRANT_TYPE] = exchange.grantType;
    if (exchange.retry) attributes[OAUTH_DPOP_NONCE_RETRY] = true;
    if (exchange.status !== undefined) attributes[HTTP_RESPONSE_STATUS_CODE] = exchange.status;
    // The HTTP conventions: a client span failed when no response came, or a 4xx or 5xx did.
    const failure =
      exchange.error ??
      (exchange.status !== undefined && exchange.status >= 400 ? String(exchange.status) : undefined);
    if (failure !== undefined) attributes[ERROR_TYPE] = failure;
    const connected = this.#parents.connected() as SpanContext | undefined;
    const links: Link[] = parent === undefined && connected ? [{ context: connected }] : [];
    const span = this.#tracer.startSpan(
      `oauth ${exchange.step}`,
      { kind: api.SpanKind.CLIENT, attributes, links, startTime: exchange.startTime },
      parent ? api.trace.setSpan(api.ROOT_CONTEXT, parent) : api.ROOT_CONTEXT,
    );
    if (failure !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end(exchange.startTime + exchange.duration);
  }
}

/** The message's scalar details as `conduit_mcp.oauth.*` attributes (never a credential: the channel carries none). */
function eventAttributes(details: Record<string, unknown>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(details)) {
    if (['string', 'number', 'boolean'].includes(typeof value))
      attributes[`conduit_mcp.oauth.${key}`] = value as AttributeValue;
  }
  return attributes;
}
