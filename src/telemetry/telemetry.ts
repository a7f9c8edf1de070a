import { type Attributes, SERVER_NAME } from './attributes.js';
import { loadOpenTelemetryApi } from './load.js';
import type { TelemetryTracerProvider } from './options.js';
import { Tracing } from './tracing.js';

type Params = Record<string, unknown> | undefined;

/** A checked `telemetry` option. */
export interface TelemetryConfig {
  /** The option's key, as ConfigErrors name it (`telemetry`, `servers.github.telemetry`). */
  readonly key: string;
  /** The client's name. */
  readonly server: string;
  /** The transport's network attributes (see networkAttributes). */
  readonly network: Attributes;
  /** An HTTP transport's endpoint, origin and path: its OAuth messages name it. */
  readonly endpoint?: string | undefined;
  /** The option's TracerProvider; the global one when undefined. */
  readonly provider?: TelemetryTracerProvider | undefined;
  /** Record a tools/call's arguments. */
  readonly recordArguments: boolean;
  /** Record a tools/call's result. */
  readonly recordResults: boolean;
  /** The library's version, the tracer's. */
  readonly version: string;
}

/**
 * One client's OpenTelemetry instrumentation: `@opentelemetry/api` is imported the first time it
 * is needed (connect), then every request, connect, restart and OAuth exchange is a span.
 */
export class Telemetry {
  readonly #config: TelemetryConfig;
  #tracing: Tracing | undefined;
  #loading: Promise<Tracing> | undefined;
  #closed = false;

  constructor(config: TelemetryConfig) {
    this.#config = config;
  }

  /** Imports `@opentelemetry/api` (once); rejects with a ConfigError naming the package when it is missing. */
  load(): Promise<unknown> {
    return this.#loaded();
  }

  #loaded(): Promise<Tracing> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<Tracing> {
    const config = this.#config;
    const api = await loadOpenTelemetryApi(config.key).catch((error: Error) => {
      this.#loading = undefined;
      throw error;
    });
    this.#tracing = new Tracing(api, config.provider, {
      recordArguments: config.recordArguments,
      recordResults: config.recordResults,
      common: { [SERVER_NAME]: config.server, ...config.network },
      endpoint: config.endpoint,
      version: config.version,
    });
    if (this.#closed) this.#tracing.close();
    return this.#tracing;
  }

  /** The client is closed for good: its OAuth exchanges are no longer recorded. */
  close(): void {
    this.#closed = true;
    this.#tracing?.close();
  }

  /** A request as a span; its context travels in `_meta` (see Tracing.request). */
  request(
    method: string,
    params: Params,
    send: (params: Params) => Promise<unknown>,
    version: () => string | undefined,
  ): Promise<unknown> {
    const tracing = this.#tracing;
    if (tracing !== undefined) return tracing.request(method, params, send, version);
    return this.#loaded().then((loaded) => loaded.request(method, params, send, version));
  }

  /**
   * A connection attempt as a span, from now until `session` settles. A failure to load the api
   * is left to the attempt, which loads it first and fails with it.
   */
  async attempt<T extends { era: string; protocolVersion: string }>(
    session: Promise<T>,
    details: { attempt: number; restart: boolean },
  ): Promise<T> {
    const startTime = performance.timeOrigin + performance.now();
    // Its failure is awaited below, maybe only after the import: not an unhandled rejection meanwhile.
    session.catch(() => {});
    let tracing: Tracing;
    try {
      tracing = this.#tracing ?? (await this.#loaded());
    } catch {
      return session;
    }
    const span = tracing.attempt({ ...details, startTime });
    try {
      const ready = await session;
      span.ready(ready.era, ready.protocolVersion);
      return ready;
    } catch (error) {
      span.failed(error);
      throw error;
    }
  }
}
