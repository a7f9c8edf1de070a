import { EventEmitter } from 'node:events';
import { channels } from '../diagnostics.js';
import { CapabilityError } from '../errors.js';
import type { JsonObject, JsonRpcNotification } from '../jsonrpc/messages.js';
import type { LogLevel } from '../protocol/meta.js';
import { capabilitiesFor, type Implementation, type ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { CloseReason } from '../transport/transport.js';
import { missingCapability } from './capabilities.js';
import type { RequestOptions } from './connection.js';
import type { Session, SessionContext } from './eras/session.js';
import {
  type ClientOptions,
  normalizeLogLevel,
  type ResolvedClientOptions,
  resolveClientOptions,
} from './options.js';
import { collectPages } from './pagination.js';
import { type ClientState, type ReadyEvent, Supervisor } from './supervisor.js';

export interface ClientEvents {
  ready: [event: ReadyEvent];
  disconnected: [reason: CloseReason];
  reconnecting: [event: { attempt: number; delay: number }];
  closed: [reason: CloseReason | undefined];
  notification: [notification: JsonRpcNotification];
  log: [params: { level: LogLevel; logger?: string; data: unknown }];
  toolsListChanged: [];
  resourcesListChanged: [];
  promptsListChanged: [];
  resourceUpdated: [event: { uri: string }];
}

type Params = JsonObject | undefined;
type Result = Record<string, unknown>;

const LIST_CHANGED: Record<string, 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged'> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
};

/**
 * An MCP client for one server. Validates every option at construction and starts nothing;
 * `connect()` starts the server, detects the era and resolves when ready; the server is restarted
 * with backoff if it dies; `close()` (or `await using`) stops everything.
 */
export class Client extends EventEmitter<ClientEvents> {
  readonly name: string;
  readonly #options: ResolvedClientOptions;
  readonly #supervisor: Supervisor;
  #logLevel: LogLevel | undefined;
  #lastSession: Session | undefined;
  readonly #subscribedUris = new Set<string>();

  constructor(options: ClientOptions) {
    super();
    this.#options = resolveClientOptions(options);
    this.name = this.#options.name;
    this.#logLevel = this.#options.logLevel;
    const context: SessionContext = {
      name: this.name,
      clientInfo: this.#options.clientInfo,
      handlers: this.#options.handlers,
      capabilities: capabilitiesFor(this.#options.handlers),
      requestTimeout: this.#options.requestTimeout,
      logLevel: () => this.#logLevel,
    };
    this.#supervisor = new Supervisor({
      name: this.name,
      transport: this.#options.transport,
      protocol: this.#options.protocol,
      probeTimeout: this.#options.probeTimeout,
      requestTimeout: this.#options.requestTimeout,
      reconnect: this.#options.reconnect,
      context,
    });
    const supervisor = this.#supervisor;
    supervisor.on('ready', (event) => this.emit('ready', event));
    supervisor.on('disconnected', (reason) => this.emit('disconnected', reason));
    supervisor.on('reconnecting', (event) => this.emit('reconnecting', event));
    supervisor.on('closed', (reason) => {
      if (channels.clientClosed.hasSubscribers) channels.clientClosed.publish({ server: this.name, reason });
      this.emit('closed', reason);
    });
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

  get serverInfo(): Implementation | undefined {
    return this.#lastSession?.serverInfo;
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
    return this.#supervisor.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Any request; resolves with the raw result. Waits for a (re)connection within its timeout. */
  async request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<unknown> {
    if (!channels.request.hasSubscribers) return this.#request(method, params, options);
    return channels.request.tracePromise(() => this.#request(method, params, options), {
      server: this.name,
      method,
    });
  }

  async #request(method: string, params: Params, options: RequestOptions): Promise<unknown> {
    const timeout = options.timeout ?? this.#options.requestTimeout;
    const started = Date.now();
    const session = await this.#supervisor.whenReady(method, { signal: options.signal, timeout });
    const missing = missingCapability(method, session.serverCapabilities);
    if (missing) throw new CapabilityError(method, missing, { server: this.name });
    const left = Math.max(1, timeout - (Date.now() - started));
    return session.request(method, params, { ...options, timeout: left });
  }

  /** Any notification. Throws if the client is not ready. */
  notify(method: string, params?: JsonObject): void {
    const session = this.#supervisor.session;
    if (!session)
      throw new CapabilityError(method, `${this.name}: cannot send ${method}: the client is ${this.state}`);
    session.notify(method, params);
  }

  /** Changes the server log level (legacy: `logging/setLevel`; modern: sent with each request). */
  async setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void> {
    this.#logLevel = normalizeLogLevel(level, 'level');
    if (this.era === 'legacy') await this.request('logging/setLevel', { level }, options);
  }

  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<Result> {
    return this.#list('tools/list', 'tools', params, options);
  }

  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<Result> {
    return this.request('tools/call', params, options) as Promise<Result>;
  }

  listResources(params?: { cursor?: string }, options?: RequestOptions): Promise<Result> {
    return this.#list('resources/list', 'resources', params, options);
  }

  listResourceTemplates(params?: { cursor?: string }, options?: RequestOptions): Promise<Result> {
    return this.#list('resources/templates/list', 'resourceTemplates', params, options);
  }

  readResource(params: { uri: string }, options?: RequestOptions): Promise<Result> {
    return this.request('resources/read', params, options) as Promise<Result>;
  }

  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<Result> {
    return this.#list('prompts/list', 'prompts', params, options);
  }

  getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<Result> {
    return this.request('prompts/get', params, options) as Promise<Result>;
  }

  complete(
    params: { ref: JsonObject; argument: { name: string; value: string }; context?: JsonObject },
    options?: RequestOptions,
  ): Promise<Result> {
    return this.request('completion/complete', params, options) as Promise<Result>;
  }

  /** Legacy: `resources/subscribe`, re-sent after every restart; updates arrive as `'resourceUpdated'`. */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.request('resources/subscribe', { uri }, options);
    this.#subscribedUris.add(uri);
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.#subscribedUris.delete(uri);
    await this.request('resources/unsubscribe', { uri }, options);
  }

  async #list(
    method: string,
    key: string,
    params: { cursor?: string } | undefined,
    options?: RequestOptions,
  ) {
    if (params?.cursor !== undefined) return (await this.request(method, params, options)) as Result;
    return collectPages(
      (cursor) => this.request(method, cursor === undefined ? {} : { cursor }, options) as Promise<Result>,
      key,
      this.name,
    );
  }

  #onSession(session: Session): void {
    this.#lastSession = session;
    if (session.era === 'legacy' && this.#subscribedUris.size > 0) {
      for (const uri of this.#subscribedUris) {
        session.request('resources/subscribe', { uri }).catch(() => this.#subscribedUris.delete(uri));
      }
    }
  }

  #onNotification(notification: JsonRpcNotification): void {
    this.emit('notification', notification);
    const { method, params } = notification;
    if (method === 'notifications/message') {
      this.emit('log', params as ClientEvents['log'][0]);
      return;
    }
    const changed = LIST_CHANGED[method];
    if (changed) {
      this.emit(changed);
      return;
    }
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      this.emit('resourceUpdated', { uri: params.uri });
    }
  }
}
