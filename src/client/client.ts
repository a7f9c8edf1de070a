import type { EventEmitter } from 'node:events';
import { channels, debug, requestTraced } from '../diagnostics.js';
import { CapabilityError, ClientClosedError, UsageError } from '../errors.js';
import type { JsonObject, JsonRpcNotification } from '../jsonrpc/messages.js';
import { screenIcons } from '../protocol/icons.js';
import type { LogLevel } from '../protocol/meta.js';
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LogMessage,
  ReadResourceResult,
} from '../protocol/results.js';
import { capabilitiesFor, type Implementation, type ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import { SafeEmitter } from '../user-code.js';
import { ResultCache } from './cache.js';
import { missingCapability } from './capabilities.js';
import type { RequestOptions } from './connection.js';
import type { Session, SessionContext } from './eras/session.js';
import {
  type ClientOptions,
  normalizeLogLevel,
  type ResolvedClientOptions,
  resolveClientOptions,
} from './options.js';
import { OutputSchemas } from './output-schemas.js';
import { collectPages } from './pagination.js';
import { normalizeRequestOptions } from './request-options.js';
import { type ListChangedEvent, Subscriptions } from './subscriptions.js';
import { type ClientState, LIFECYCLE_EVENTS, type LifecycleEvents, Supervisor } from './supervisor.js';
import type { ClientWarning } from './warnings.js';

/**
 * The Supervisor's events (`ready`, `disconnected`, `reconnecting`, `closed`, `notification`),
 * and what the Client reads from the notifications.
 */
export interface ClientEvents extends LifecycleEvents {
  log: [message: LogMessage];
  toolsListChanged: [];
  resourcesListChanged: [];
  promptsListChanged: [];
  resourceUpdated: [event: { uri: string }];
  /** An optional step failed (a refused `logging/setLevel`, a failed listen stream); still connected. */
  warning: [warning: ClientWarning];
}

type Params = JsonObject | undefined;

const LIST_CHANGED: Record<string, ListChangedEvent> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
};

/** The cached lists each change notification makes stale. */
const STALE_LISTS: Record<ListChangedEvent, string[]> = {
  toolsListChanged: ['tools/list'],
  resourcesListChanged: ['resources/list', 'resources/templates/list'],
  promptsListChanged: ['prompts/list'],
};

const isListChangedEvent = (event: string | symbol): event is ListChangedEvent =>
  event === 'toolsListChanged' || event === 'resourcesListChanged' || event === 'promptsListChanged';

/**
 * An MCP client for one server. Validates every option at construction and starts nothing;
 * `connect()` starts the server, detects the era and resolves when ready; the server is restarted
 * with backoff if it dies; `close()` (or `await using`) stops everything.
 */
export class Client extends SafeEmitter<ClientEvents> {
  readonly name: string;
  readonly #options: ResolvedClientOptions;
  readonly #supervisor: Supervisor;
  #logLevel: LogLevel | undefined;
  #lastSession: Session | undefined;
  readonly #cache: ResultCache | undefined;
  readonly #subscriptions: Subscriptions;
  readonly #outputSchemas: OutputSchemas;

  constructor(options: ClientOptions) {
    super();
    this.#options = resolveClientOptions(options);
    this.name = this.#options.name;
    this.#logLevel = this.#options.logLevel;
    this.#cache = this.#options.cache ? new ResultCache() : undefined;
    this.#outputSchemas = new OutputSchemas(this.name, this.#options.validateSchema);
    this.#subscriptions = new Subscriptions(this.name, this.#options.requestTimeout, this.#warn);
    // Modern servers send change notifications only on request: listen while someone listens.
    const emitter = this as EventEmitter;
    emitter.on('newListener', (event: string | symbol) => {
      if (isListChangedEvent(event)) this.#subscriptions.setListWanted(event, true);
    });
    emitter.on('removeListener', (event: string | symbol) => {
      if (isListChangedEvent(event) && this.listenerCount(event) === 0) {
        this.#subscriptions.setListWanted(event, false);
      }
    });
    const context: SessionContext = {
      name: this.name,
      clientInfo: this.#options.clientInfo,
      handlers: this.#options.handlers,
      capabilities: capabilitiesFor(this.#options.handlers, this.#options),
      elicitationModes: this.#options.elicitationModes,
      samplingTools: this.#options.samplingTools,
      validateSchema: this.#options.validateSchema,
      requestTimeout: this.#options.requestTimeout,
      logLevel: () => this.#logLevel,
      warn: this.#warn,
    };
    this.#supervisor = new Supervisor({
      name: this.name,
      transport: this.#options.transport,
      protocol: this.#options.protocol,
      probeTimeout: this.#options.probeTimeout,
      requestTimeout: this.#options.requestTimeout,
      connectTimeout: this.#options.connectTimeout,
      reconnect: this.#options.reconnect,
      context,
    });
    const supervisor = this.#supervisor;
    supervisor.on('closed', (reason) => {
      if (channels.clientClosed.hasSubscribers) channels.clientClosed.publish({ server: this.name, reason });
    });
    for (const event of LIFECYCLE_EVENTS) {
      (supervisor as EventEmitter).on(event, (...args: unknown[]) => emitter.emit(event, ...args));
    }
    supervisor.on('notification', (notification) => this.#onNotification(notification));
    supervisor.on('session', (session) => this.#onSession(session));
  }

  get state(): ClientState {
    return this.#supervisor.state;
  }

  get era(): Era | undefined {
    return this.#lastSession?.era;
  }

  get protocolVersion(): string | undefined {
    return this.#lastSession?.protocolVersion;
  }

  /** The server's self-description (unverified), with unsafe icons left out. */
  get serverInfo(): Implementation | undefined {
    const info = this.#lastSession?.serverInfo;
    return info && screenIcons(info, { count: 0 });
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#lastSession?.serverCapabilities;
  }

  get instructions(): string | undefined {
    return this.#lastSession?.instructions;
  }

  /** The current server process's pid, if one runs. */
  get pid(): number | undefined {
    return this.#supervisor.transport?.pid;
  }

  /**
   * Starts the server, detects the era, resolves when ready. Rejects at once for what a restart
   * cannot heal (missing executable, configuration, no common version), otherwise once the
   * `reconnect` policy has given up.
   */
  connect(): Promise<void> {
    return this.#supervisor.connect();
  }

  /** Stops for good; resolves when the transport is closed (the process exits on its own schedule). */
  close(): Promise<void> {
    this.#subscriptions.dispose();
    return this.#supervisor.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Any request; resolves with the raw result. Waits for a (re)connection within its timeout. */
  request(method: string, params?: JsonObject, rawOptions?: RequestOptions): Promise<unknown> {
    let options: RequestOptions;
    try {
      options = normalizeRequestOptions(rawOptions, this.name, method);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!requestTraced()) return this.#request(method, params, options);
    return channels.request.tracePromise(() => this.#request(method, params, options), {
      server: this.name,
      method,
    });
  }

  /**
   * While ready, the request goes out synchronously, with no promise or tick of its own before the
   * connection's (the hot path: one call per request); otherwise it waits for the session first.
   * Never throws: every failure is a rejection.
   */
  #request(method: string, params: Params, options: RequestOptions): Promise<unknown> {
    const session = this.#supervisor.session;
    if (session === undefined) return this.#requestWhenReady(method, params, options);
    try {
      // No time was spent waiting: the options go as they are (the session applies the same
      // default timeout).
      return this.#send(session, method, params, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #requestWhenReady(method: string, params: Params, options: RequestOptions): Promise<unknown> {
    const timeout = options.timeout ?? this.#options.requestTimeout;
    const started = Date.now();
    const session = await this.#supervisor.whenReady(method, { signal: options.signal, timeout });
    const left = Math.max(1, timeout - (Date.now() - started));
    return this.#send(session, method, params, { ...options, timeout: left });
  }

  #send(session: Session, method: string, params: Params, options: RequestOptions): Promise<unknown> {
    const missing = missingCapability(method, session.serverCapabilities);
    if (missing) throw new CapabilityError(method, missing, { server: this.name });
    const cacheable = this.#cache !== undefined && session.isCacheable(method);
    if (cacheable) {
      const cached = this.#cache!.get(method, params);
      if (cached !== undefined) return Promise.resolve(cached);
    }
    const sent = session.request(method, params, options);
    if (!cacheable) return sent;
    return sent.then((result) => {
      if (session.mayCache(result)) this.#cache!.set(method, params, result);
      return result;
    });
  }

  /** Any notification. Throws if the client is not ready. */
  notify(method: string, params?: JsonObject): void {
    const session = this.#supervisor.session;
    if (session) {
      session.notify(method, params);
      return;
    }
    if (this.state === 'closed') throw new ClientClosedError(undefined, { server: this.name, method });
    throw new UsageError(`${this.name}: cannot send ${method} while the client is ${this.state}`);
  }

  /** Changes the server log level (legacy: `logging/setLevel`; modern: sent with each request). */
  async setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void> {
    this.#logLevel = normalizeLogLevel(level, 'level');
    if (this.era === 'legacy') await this.request('logging/setLevel', { level }, options);
  }

  /** Every tool (all pages merged), or one page when `cursor` is given. */
  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult> {
    return this.#list('tools/list', 'tools', params, options) as Promise<ListToolsResult>;
  }

  /**
   * Calls a tool. A tool that failed resolves with `isError: true`: a result, not a rejection.
   * For a listed tool with an `outputSchema`, `structuredContent` is checked (ProtocolError if not).
   */
  async callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const result = (await this.request('tools/call', params, options)) as CallToolResult;
    return this.#outputSchemas.check(params.name, result);
  }

  listResources(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.#list('resources/list', 'resources', params, options) as Promise<ListResourcesResult>;
  }

  listResourceTemplates(
    params?: { cursor?: string },
    options?: RequestOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.#list(
      'resources/templates/list',
      'resourceTemplates',
      params,
      options,
    ) as Promise<ListResourceTemplatesResult>;
  }

  readResource(params: { uri: string }, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', params, options) as Promise<ReadResourceResult>;
  }

  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.#list('prompts/list', 'prompts', params, options) as Promise<ListPromptsResult>;
  }

  getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return this.request('prompts/get', params, options) as Promise<GetPromptResult>;
  }

  complete(
    params: { ref: JsonObject; argument: { name: string; value: string }; context?: JsonObject },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    return this.request('completion/complete', params, options) as Promise<CompleteResult>;
  }

  /**
   * Watches a resource; updates arrive as `'resourceUpdated'`. Legacy: `resources/subscribe`;
   * modern: the URI joins the `subscriptions/listen` filter (resolves once acknowledged).
   * Restored after every restart.
   */
  async subscribeResource(uri: string, rawOptions?: RequestOptions): Promise<void> {
    const options = normalizeRequestOptions(rawOptions, this.name, 'resources/subscribe');
    const session = await this.#supervisor.whenReady('resources/subscribe', {
      signal: options?.signal,
      timeout: options.timeout ?? this.#options.requestTimeout,
    });
    const missing = missingCapability('resources/subscribe', session.serverCapabilities);
    if (missing) throw new CapabilityError('resources/subscribe', missing, { server: this.name });
    await this.#subscriptions.subscribe(uri, (method, params) => this.request(method, params, options));
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#subscriptions.unsubscribe(uri, (method, params) => this.request(method, params, options));
  }

  async #list(
    method: string,
    key: string,
    params: { cursor?: string } | undefined,
    options?: RequestOptions,
  ) {
    let result = (await this.#pages(method, key, params, options)) as Record<string, unknown>;
    const items = result[key];
    if (Array.isArray(items)) {
      const dropped = { count: 0 };
      const screened = items.map((item) => screenIcons(item, dropped));
      if (dropped.count > 0) {
        // A new object: a cached result is never changed in place.
        result = { ...result, [key]: screened };
        debug('%s: %s: left out %d icons with an unsafe source', this.name, method, dropped.count);
      }
    }
    if (method === 'tools/list') this.#outputSchemas.remember(result);
    return result;
  }

  #pages(method: string, key: string, params: { cursor?: string } | undefined, options?: RequestOptions) {
    if (params?.cursor !== undefined) return this.request(method, params, options);
    return collectPages(
      (cursor) =>
        this.request(method, cursor === undefined ? {} : { cursor }, options) as Promise<
          Record<string, unknown>
        >,
      key,
      this.name,
    );
  }

  readonly #warn = (warning: ClientWarning): void => {
    debug('%s', warning.message);
    if (channels.warning.hasSubscribers) channels.warning.publish({ server: this.name, warning });
    this.emit('warning', warning);
  };

  #onSession(session: Session): void {
    this.#lastSession = session;
    this.#cache?.clear();
    this.#outputSchemas.clear();
    this.#subscriptions.attach(session);
  }

  /** Runs after the notification itself was passed on as `'notification'`. */
  #onNotification(notification: JsonRpcNotification): void {
    const { method, params } = notification;
    if (method === 'notifications/message') {
      this.emit('log', params as unknown as LogMessage);
      return;
    }
    const onListenStreams = this.#lastSession?.changeNotifications === 'listen';
    if (onListenStreams && method === 'notifications/cancelled' && params?.requestId !== undefined) {
      this.#subscriptions.serverCancelled(params.requestId as string);
      return;
    }
    // Where change notifications come on listen streams, they count only on one of ours.
    if (onListenStreams && !this.#subscriptions.accept(notification)) return;
    const changed = LIST_CHANGED[method];
    if (changed) {
      this.#cache?.invalidate(...STALE_LISTS[changed]);
      if (changed === 'toolsListChanged') this.#outputSchemas.clear();
      this.emit(changed);
      return;
    }
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      this.#cache?.invalidateUri(params.uri);
      this.emit('resourceUpdated', { uri: params.uri });
    }
  }
}
