import type { Context, Link, Span, SpanContext, Tracer, TracerProvider as Tracers } from '@opentelemetry/api';
import {
  type Attributes,
  ERA,
  ERROR_TYPE,
  errorType,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_RESULT,
  MCP_PROTOCOL_VERSION,
  RECONNECT_ATTEMPT,
  RPC_RESPONSE_STATUS_CODE,
  requestAttributes,
  rpcStatusCode,
  SERVER_NAME,
  spanName,
} from './attributes.js';
import { OAuthSpans } from './oauth-spans.js';
import type { TelemetryTracerProvider } from './options.js';

// The optional peer's types stay out of every exported signature (see load.ts).
type OpenTelemetryApi = typeof import('@opentelemetry/api');

type Params = Record<string, unknown> | undefined;

/** What Tracing records beyond the conventions' defaults, and on every span. */
export interface TracingSettings {
  /** Record a tools/call's arguments. */
  readonly recordArguments: boolean;
  /** Record a tools/call's result. */
  readonly recordResults: boolean;
  /** The server's name and the network attributes, on every span. */
  readonly common: Attributes;
}

/** One connection attempt, as the span records it. */
export interface AttemptDetails {
  /** 0 for the first attempt of connect(); the restart count after. */
  readonly attempt: number;
  /** Whether it is a restart (any attempt after the first of the client). */
  readonly restart: boolean;
  /** When the attempt started (ms since the epoch). */
  readonly startTime: number;
}

const LIBRARY = 'conduit-mcp';

/** Makes the spans of one client, with the loaded `@opentelemetry/api` and its tracer. */
export class Tracing {
  readonly #api: OpenTelemetryApi;
  readonly #tracer: Tracer;
  readonly #settings: TracingSettings;
  /** The first connect's span: each restart's span links to it. */
  #connected: SpanContext | undefined;
  /** The connection attempt's span while one is under way: its OAuth exchanges' parent. */
  #attempting: Span | undefined;
  /** The spans of the requests under way: an OAuth exchange in one's context is its child. */
  readonly #requests = new Set<Span>();
  readonly #oauth: OAuthSpans;

  /** `api` is the loaded `@opentelemetry/api`; `provider` the option's, else the global one. */
  constructor(
    api: unknown,
    provider: TelemetryTracerProvider | undefined,
    settings: TracingSettings & { readonly version: string; readonly endpoint?: string | undefined },
  ) {
    this.#api = api as OpenTelemetryApi;
    const tracers = (provider as Tracers | undefined) ?? this.#api.trace.getTracerProvider();
    this.#tracer = tracers.getTracer(LIBRARY, settings.version);
    this.#settings = settings;
    const client = { server: String(settings.common[SERVER_NAME]), endpoint: settings.endpoint };
    this.#oauth = new OAuthSpans(this.#api, this.#tracer, client, {
      attempt: () => this.#attempting,
      request: () => {
        const active = this.#api.trace.getSpan(this.#api.context.active());
        return active !== undefined && this.#requests.has(active) ? active : undefined;
      },
      connected: () => this.#connected,
    });
  }

  /** Stops recording this client's OAuth exchanges (it is closed). */
  close(): void {
    this.#oauth.close();
  }

  /**
   * One request as a CLIENT span, child of the active context; `send` gets the params with the
   * span's context injected in `_meta` by the configured propagators (W3C `traceparent`...). An
   * OAuth exchange the request causes (a refresh, a new authorization) is the span's child.
   */
  request(
    method: string,
    params: Params,
    send: (params: Params) => Promise<unknown>,
    version: () => string | undefined,
  ): Promise<unknown> {
    const api = this.#api;
    const parent = api.context.active();
    const span = this.#tracer.startSpan(
      spanName(method, params),
      { kind: api.SpanKind.CLIENT, attributes: requestAttributes(method, params, this.#settings.common) },
      parent,
    );
    if (this.#settings.recordArguments && method === 'tools/call')
      setJson(span, GEN_AI_TOOL_CALL_ARGUMENTS, params?.arguments);
    const active = api.trace.setSpan(parent, span);
    this.#requests.add(span);
    let sent: Promise<unknown>;
    try {
      // Sent in the span's context: an instrumented HTTP request under it is its child.
      sent = api.context.with(active, send, undefined, this.#inject(params, active));
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (result) => {
        this.#requests.delete(span);
        this.#answered(span, method, result, version());
        return result;
      },
      (error: unknown) => {
        this.#requests.delete(span);
        this.#failed(span, error, version());
        throw error;
      },
    );
  }

  /**
   * Starts a connection attempt's span: the first connect's is a child of the active context, a
   * restart's a root linked to it. The attempt's OAuth exchanges are its children (see OAuthSpans).
   */
  attempt(details: AttemptDetails): AttemptSpan {
    const api = this.#api;
    const attributes: Attributes = { ...this.#settings.common };
    if (details.restart) attributes[RECONNECT_ATTEMPT] = details.attempt;
    const links: Link[] = details.restart && this.#connected ? [{ context: this.#connected }] : [];
    const span = this.#tracer.startSpan(
      `${LIBRARY} ${details.restart ? 'reconnect' : 'connect'}`,
      { kind: api.SpanKind.INTERNAL, attributes, links, startTime: details.startTime },
      details.restart ? api.ROOT_CONTEXT : api.context.active(),
    );
    if (!details.restart) this.#connected ??= span.spanContext();
    this.#attempting = span;
    this.#oauth.listen();
    const over = () => {
      if (this.#attempting === span) this.#attempting = undefined;
    };
    return {
      ready: (era, protocolVersion) => {
        over();
        span.setAttributes({ [ERA]: era, [MCP_PROTOCOL_VERSION]: protocolVersion });
        span.end();
      },
      failed: (error) => {
        over();
        this.#failed(span, error, undefined);
      },
    };
  }

  #inject(params: Params, context: Context): Params {
    const own = params?._meta as Record<string, unknown> | undefined;
    const carrier: Record<string, unknown> = { ...own };
    this.#api.propagation.inject(context, carrier);
    if (
      own !== undefined
        ? Object.keys(carrier).length === Object.keys(own).length
        : Object.keys(carrier).length === 0
    )
      return params;
    return { ...params, _meta: carrier };
  }

  #answered(span: Span, method: string, result: unknown, version: string | undefined): void {
    if (version !== undefined) span.setAttribute(MCP_PROTOCOL_VERSION, version);
    if (method === 'tools/call' && typeof result === 'object' && result !== null) {
      if ((result as { isError?: unknown }).isError === true) {
        span.setAttribute(ERROR_TYPE, 'tool_error');
        span.setStatus({ code: this.#api.SpanStatusCode.ERROR });
      }
      if (this.#settings.recordResults) setJson(span, GEN_AI_TOOL_CALL_RESULT, result);
    }
    span.end();
  }

  #failed(span: Span, error: unknown, version: string | undefined): void {
    if (version !== undefined) span.setAttribute(MCP_PROTOCOL_VERSION, version);
    span.setAttribute(ERROR_TYPE, errorType(error));
    const code = rpcStatusCode(error);
    if (code !== undefined) span.setAttribute(RPC_RESPONSE_STATUS_CODE, code);
    span.setStatus({
      code: this.#api.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    span.end();
  }
}

/** Sets the attribute to the value as JSON; nothing for a value that has none (undefined, a cycle). */
function setJson(span: Span, key: string, value: unknown): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return;
  }
  if (text !== undefined) span.setAttribute(key, text);
}

/** A connection attempt's span, ended by what became of the attempt. */
export interface AttemptSpan {
  /** The session is ready: records its era and protocol version, and ends the span. */
  ready(era: string, protocolVersion: string): void;
  /** The attempt failed: records the error and ends the span. */
  failed(error: unknown): void;
}
