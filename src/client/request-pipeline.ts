import { performance } from 'node:perf_hooks';
import { channels, requestTraced } from '../diagnostics.js';
import { CapabilityError, ClientClosedError, UsageError } from '../errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { LogLevel } from '../protocol/meta.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { ResultCache } from './cache.js';
import { missingCapability } from './capabilities.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import { checkedLogLevel } from './log-level.js';
import { normalizeRequestOptions } from './request-options.js';
import { sendResending } from './resend.js';
import type { Supervisor } from './supervisor.js';

/**
 * The way of every request of a Client: its options checked, traced on `conduit-mcp:client:request`
 * when someone listens, held until a session is ready (within its timeout), refused when the
 * server lacks the capability, served from the result cache where the era allows, and sent again
 * once when the server proved it never ran it.
 */
export class RequestPipeline {
  readonly #name: string;
  readonly #supervisor: Supervisor;
  readonly #defaultTimeout: number;
  readonly #caching: boolean;
  readonly #telemetry: Telemetry | undefined;
  #cache: ResultCache | undefined;

  constructor(
    name: string,
    supervisor: Supervisor,
    options: { requestTimeout: number; cache: boolean; telemetry?: Telemetry | undefined },
  ) {
    this.#name = name;
    this.#supervisor = supervisor;
    this.#defaultTimeout = options.requestTimeout;
    this.#caching = options.cache;
    this.#telemetry = options.telemetry;
  }

  /** The result cache once a cacheable result was stored (undefined before, and with `cache: false`). */
  get cache(): ResultCache | undefined {
    return this.#cache;
  }

  request(method: string, params: JsonObject | undefined, rawOptions: unknown): Promise<unknown> {
    let options: RequestOptions;
    try {
      options = normalizeRequestOptions(rawOptions, this.#name, method);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#telemetry !== undefined) {
      const version = () => this.#supervisor.memory?.version;
      return this.#telemetry.request(method, params, (sent) => this.#traced(method, sent, options), version);
    }
    return this.#traced(method, params, options);
  }

  /** The request, on the `conduit-mcp:request` tracing channel when someone listens. */
  #traced(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<unknown> {
    if (!requestTraced()) {
      try {
        return this.#request(method, params, options);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return channels.request.tracePromise(() => this.#request(method, params, options), {
      server: this.#name,
      method,
    });
  }

  /** Resolves with the round trip in ms: legacy `ping`; the modern era has none, `server/discover` stands for it. */
  async ping(rawOptions: unknown): Promise<number> {
    const options = normalizeRequestOptions(rawOptions, this.#name, 'ping');
    const session = await this.whenReady('ping', options);
    const started = performance.now();
    await this.request(session.era === 'modern' ? 'server/discover' : 'ping', undefined, options);
    return performance.now() - started;
  }

  /** Sends a notification on the ready session; throws if there is none. */
  notify(method: string, params: JsonObject | undefined): void {
    const session = this.#supervisor.session;
    if (session) {
      session.notify(method, params);
      return;
    }
    const state = this.#supervisor.state;
    if (state === 'closed') throw new ClientClosedError(undefined, { server: this.#name, method });
    throw new UsageError(`cannot send ${method} while the client is ${state}`, { server: this.#name });
  }

  /** Applies a log level on the ready session (if any); resolves with it, checked, once the server took it. */
  async setLogLevel(level: unknown, rawOptions: unknown): Promise<LogLevel> {
    const checked = checkedLogLevel(level, this.#name);
    const options = normalizeRequestOptions(rawOptions, this.#name, 'logging/setLevel');
    const session = this.#supervisor.session;
    if (session) await session.applyLogLevel(checked, options);
    else if (this.#supervisor.state === 'closed')
      throw new ClientClosedError(undefined, { server: this.#name, method: 'logging/setLevel' });
    return checked;
  }

  /** The session, once there is one, within the options' timeout (the client's by default). */
  whenReady(method: string, options: RequestOptions | undefined): Promise<Session> {
    return this.#supervisor.whenReady(method, {
      signal: options?.signal,
      timeout: options?.timeout ?? this.#defaultTimeout,
    });
  }

  #request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<unknown> {
    const session = this.#supervisor.session;
    if (session === undefined) return this.#requestWhenReady(method, params, options);
    return this.#sendOn(session, method, params, options);
  }

  async #requestWhenReady(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
  ): Promise<unknown> {
    // The time a person takes to consent (OAuth) is not counted, as for the request itself.
    const { clock } = this.#supervisor;
    const timeout = options.timeout ?? this.#defaultTimeout;
    const started = clock.now();
    const session = await this.#supervisor.whenReady(method, { signal: options.signal, timeout });
    return this.#sendOn(session, method, params, {
      ...options,
      timeout: Math.max(1, timeout - (clock.now() - started)),
    });
  }

  #sendOn(session: Session, method: string, params: JsonObject | undefined, options: RequestOptions) {
    const send = (on: Session, sent: RequestOptions) => this.#send(on, method, params, sent);
    return sendResending(this.#supervisor, session, method, options, this.#defaultTimeout, send);
  }

  #send(
    session: Session,
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
  ): Promise<unknown> {
    const missing = missingCapability(method, session.serverCapabilities);
    if (missing) return Promise.reject(new CapabilityError(method, missing, { server: this.#name }));
    if (!this.#caching || !session.isCacheable(method)) return session.request(method, params, options);
    return this.#sendCaching(session, method, params, options);
  }

  async #sendCaching(
    session: Session,
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions,
  ): Promise<unknown> {
    const cached = this.#cache?.get(method, params);
    if (cached !== undefined) return cached;
    const result = await session.request(method, params, options);
    if (session.mayCache(result)) {
      this.#cache ??= new ResultCache();
      this.#cache.set(method, params, result);
    }
    return result;
  }
}
