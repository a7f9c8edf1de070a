import type { EventEmitter } from 'node:events';
import { attributeTo } from '../attribution.js';
import { channels, debug, requestTraced } from '../diagnostics.js';
import {
  AbortError,
  CapabilityError,
  ClientClosedError,
  McpError,
  RequestTimeoutError,
  UsageError,
} from '../errors.js';
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
import type { CloseReason } from '../transport/transport.js';
import { SafeEmitter } from '../user-code.js';
import { ResultCache } from './cache.js';
import { missingCapability } from './capabilities.js';
import type { RequestOptions } from './connection.js';
import type { Session, SessionContext } from './eras/session.js';
import { checkedLogLevel } from './log-level.js';
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from './options.js';
import { OutputSchemas } from './output-schemas.js';
import { listPages } from './pagination.js';
import { PromptArguments, readGetPromptResult } from './prompts.js';
import { normalizeRequestOptions } from './request-options.js';
import { sendResending } from './resend.js';
import { normalizeRoots, type Root } from './roots.js';
import {
  type ListSkillsResult,
  type LoadedSkill,
  listedSkillFile,
  loadVerifiedSkill,
  type SkillEntry,
  type VerifiedSkillFile,
  verifySkillFile,
} from './skills.js';
import { type ListChangedEvent, Subscriptions } from './subscriptions.js';
import { type ClientState, type LifecycleEvents, Supervisor, type SupervisorEvents } from './supervisor.js';
import {
  type ListTasksResult,
  readTask,
  type Task,
  ToolTasks,
  taskCapabilityError,
  tasksMethodRefusal,
} from './tasks.js';
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
  /** Legacy tasks: a `notifications/tasks/status` (the task's new state). */
  taskStatus: [task: Task];
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
  // Made on first use (a connect needs none of them): each is read through its getter below, and
  // cleared or invalidated only if it exists.
  #cacheMade: ResultCache | undefined;
  #subscriptionsMade: Subscriptions | undefined;
  #outputSchemasMade: OutputSchemas | undefined;
  #promptArgumentsMade: PromptArguments | undefined;
  #toolTasksMade: ToolTasks | undefined;
  /** The tool of each task startToolTask created, until its result is read. */
  /** The tool of each task started here, by task id; made on the first task. */
  #taskTools: Map<string, string> | undefined;
  #roots: readonly Root[] | undefined;

  constructor(options: ClientOptions) {
    super();
    this.#options = resolveClientOptions(options);
    this.name = this.#options.name;
    this.#logLevel = this.#options.logLevel;
    // Modern servers send change notifications only on request: listen while someone listens.
    const emitter = this as EventEmitter;
    emitter.on('newListener', Client.#listenerWatch.newListener);
    emitter.on('removeListener', Client.#listenerWatch.removeListener);
    this.#roots = this.#options.roots;
    const handlers =
      this.#roots === undefined
        ? this.#options.handlers
        : { ...this.#options.handlers, roots: async () => ({ roots: this.#roots }) };
    const context: SessionContext = {
      name: this.name,
      clientInfo: this.#options.clientInfo,
      handlers,
      capabilities: capabilitiesFor(handlers, {
        elicitationModes: this.#options.elicitationModes,
        samplingTools: this.#options.samplingTools,
        rootsListChanged: this.#roots !== undefined,
      }),
      elicitationModes: this.#options.elicitationModes,
      samplingTools: this.#options.samplingTools,
      validateSchema: this.#options.validateSchema,
      requestTimeout: this.#options.requestTimeout,
      logLevel: () => this.#logLevel,
      warn: this.#warn,
    };
    // The resolved options are the Supervisor's settings as they are: no copy per client.
    this.#supervisor = new Supervisor(this.#options, context, (event, args) =>
      this.#fromSupervisor(event, args),
    );
  }

  /** The result cache, unless the `cache` option is off. */
  get #cache(): ResultCache | undefined {
    if (!this.#options.cache) return undefined;
    this.#cacheMade ??= new ResultCache();
    return this.#cacheMade;
  }

  get #outputSchemas(): OutputSchemas {
    this.#outputSchemasMade ??= new OutputSchemas(this.name, this.#options.validateSchema);
    return this.#outputSchemasMade;
  }

  get #promptArguments(): PromptArguments {
    this.#promptArgumentsMade ??= new PromptArguments(this.name);
    return this.#promptArgumentsMade;
  }

  get #toolTasks(): ToolTasks {
    this.#toolTasksMade ??= new ToolTasks(this.name);
    return this.#toolTasksMade;
  }

  /** Made attached to the latest session, as one made with the client and attached to each would be. */
  get #subscriptions(): Subscriptions {
    if (!this.#subscriptionsMade) {
      this.#subscriptionsMade = new Subscriptions(this.name, this.#options.requestTimeout, this.#warn);
      if (this.#lastSession) this.#subscriptionsMade.attach(this.#lastSession);
    }
    return this.#subscriptionsMade;
  }

  // Shared by every Client (EventEmitter calls them with the Client as `this`), not two closures each.
  static readonly #listenerWatch = {
    newListener(this: Client, event: string | symbol): void {
      if (isListChangedEvent(event)) this.#subscriptions.setListWanted(event, true);
    },
    removeListener(this: Client, event: string | symbol): void {
      if (isListChangedEvent(event) && this.listenerCount(event) === 0) {
        this.#subscriptions.setListWanted(event, false);
      }
    },
  };

  /**
   * The Supervisor's events: the lifecycle ones and every notification are passed on as they are
   * (a notification first, then what the Client reads from it); a new session is internal.
   */
  #fromSupervisor(event: keyof SupervisorEvents, args: unknown[]): void {
    if (event === 'session') {
      this.#onSession(args[0] as Session);
      return;
    }
    // The lifecycle events' errors (a close reason's, a reconnect's) name the server.
    attributeTo((args[0] as { error?: unknown } | undefined)?.error, this.name);
    if (event === 'closed' && channels.clientClosed.hasSubscribers) {
      channels.clientClosed.publish({ server: this.name, reason: args[0] as CloseReason | undefined });
    }
    (this as EventEmitter).emit(event, ...args);
    if (event === 'notification') this.#onNotification(args[0] as JsonRpcNotification);
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
    return this.#supervisor
      .connect()
      .catch((error: unknown) => Promise.reject(attributeTo(error, this.name)));
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

  /** Waits for a session first if there is none; never throws: every failure is a rejection. */
  async #request(method: string, params: Params, options: RequestOptions): Promise<unknown> {
    let session = this.#supervisor.session;
    if (session === undefined) {
      const timeout = options.timeout ?? this.#options.requestTimeout;
      const started = Date.now();
      session = await this.#supervisor.whenReady(method, { signal: options.signal, timeout });
      options = { ...options, timeout: Math.max(1, timeout - (Date.now() - started)) };
    }
    const send = (on: Session, sent: RequestOptions) => this.#send(on, method, params, sent);
    return sendResending(this.#supervisor, session, method, options, this.#options.requestTimeout, send);
  }

  async #send(session: Session, method: string, params: Params, options: RequestOptions): Promise<unknown> {
    const missing = missingCapability(method, session.serverCapabilities);
    if (missing) throw new CapabilityError(method, missing, { server: this.name });
    if (this.#cache === undefined || !session.isCacheable(method))
      return session.request(method, params, options);
    const cached = this.#cache.get(method, params);
    if (cached !== undefined) return cached;
    const result = await session.request(method, params, options);
    if (session.mayCache(result)) this.#cache.set(method, params, result);
    return result;
  }

  /** Any notification. Throws if the client is not ready. */
  notify(method: string, params?: JsonObject): void {
    const session = this.#supervisor.session;
    if (session) {
      session.notify(method, params);
      return;
    }
    if (this.state === 'closed') throw new ClientClosedError(undefined, { server: this.name, method });
    throw new UsageError(`cannot send ${method} while the client is ${this.state}`, { server: this.name });
  }

  /**
   * Changes the server log level through the session (legacy: `logging/setLevel`; modern: sent
   * with each request; not connected: at the next handshake). UsageError for a level that is not
   * one; a server that refuses it rejects (its McpError); either way the level stays as it was. A
   * server without `logging`: a `'warning'` (`log_level_unsupported`), as for the logLevel option.
   */
  async setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void> {
    const checked = checkedLogLevel(level, this.name);
    const requestOptions = normalizeRequestOptions(options, this.name, 'logging/setLevel');
    const session = this.#supervisor.session;
    if (session) await session.applyLogLevel(checked, requestOptions);
    else if (this.state === 'closed')
      throw new ClientClosedError(undefined, { server: this.name, method: 'logging/setLevel' });
    this.#logLevel = checked;
  }

  /** The roots offered to the server (the `roots` option, as last set by `setRoots`). */
  get roots(): readonly Root[] | undefined {
    return this.#roots;
  }

  /**
   * Replaces the roots (`file://` URIs, checked and normalised as at construction; UsageError
   * otherwise). Legacy: sends `notifications/roots/list_changed` while connected; a server asks
   * `roots/list` again after every (re)connect anyway. Needs the `roots` option (which declares
   * `roots.listChanged`).
   */
  setRoots(roots: readonly Root[]): void {
    if (this.#roots === undefined) {
      throw new UsageError(
        'setRoots() needs the roots option at construction (roots: [] declares the roots capability with listChanged)',
        { server: this.name },
      );
    }
    const normalized = normalizeRoots(roots);
    if (!Array.isArray(normalized)) {
      const where = normalized.index === undefined ? '' : ` (roots[${normalized.index}])`;
      throw new UsageError(`setRoots: ${normalized.problem}${where}`, { server: this.name });
    }
    this.#roots = normalized;
    const session = this.#supervisor.session;
    if (session?.era !== 'legacy') return;
    try {
      session.notify('notifications/roots/list_changed');
    } catch (error) {
      // Lost meanwhile: the next connection's server asks roots/list afresh.
      debug('%s: notifications/roots/list_changed not sent: %s', this.name, (error as Error).message);
    }
  }

  /** Every tool (all pages merged), or one page when `cursor` is given. */
  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<ListToolsResult> {
    return this.#list('tools/list', 'tools', params, options) as Promise<ListToolsResult>;
  }

  /**
   * Calls a tool. A tool that failed resolves with `isError: true`: a result, not a rejection.
   * For a listed tool with an `outputSchema`, `structuredContent` is checked (ProtocolError if not).
   */
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const session = this.#supervisor.session;
    if (
      session !== undefined &&
      session.era === 'legacy' &&
      (this.#toolTasks.mustList(session) || this.#toolTasks.mustRunAsTask(session, params?.name))
    ) {
      return this.#callToolOfTaskServer(params, options);
    }
    return this.request('tools/call', params, options).then((result) =>
      this.#outputSchemas.check(params?.name, result as CallToolResult),
    );
  }

  /** A legacy server that declares task-augmented tools/call: list first, run as a task if required. */
  async #callToolOfTaskServer(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const session = this.#supervisor.session!;
    if (this.#toolTasks.mustList(session)) await this.listTools(undefined, options);
    if (this.#toolTasks.mustRunAsTask(session, params.name)) return this.#runToolTask(params, options);
    const result = (await this.request('tools/call', params, options)) as CallToolResult;
    return this.#outputSchemas.check(params.name, result);
  }

  /**
   * Legacy tasks (2025-11-25): sends a task-augmented `tools/call` (`task: { ttl? }`) and resolves
   * with the Task the server created; `getTaskResult` gets its result. Only for a server that
   * declares `tasks.requests.tools.call` and a listed tool whose `execution.taskSupport` is
   * `optional` or `required` (CapabilityError otherwise, nothing sent). The tools are listed
   * first if they never were.
   */
  async startToolTask(
    params: { name: string; arguments?: Record<string, unknown>; ttl?: number },
    options?: RequestOptions,
  ): Promise<Task> {
    const { ttl, ...call } = params;
    if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0))
      throw new UsageError(`startToolTask: ttl must be a whole number of ms, got ${String(ttl)}`, {
        server: this.name,
      });
    const session = await this.#supervisor.whenReady('tools/call', {
      signal: options?.signal,
      timeout: options?.timeout ?? this.#options.requestTimeout,
    });
    if (this.#toolTasks.mustList(session)) await this.listTools(undefined, options);
    const refusal = this.#toolTasks.refusal(session, call.name);
    if (refusal) throw taskCapabilityError('tools/call', refusal, this.name);
    const task = await this.#toolTasks.start(
      (method, taskParams, requestOptions) => this.request(method, taskParams, requestOptions),
      call as JsonObject,
      ttl,
      options,
    );
    this.#taskTools ??= new Map();
    this.#taskTools.set(task.taskId, call.name);
    return task;
  }

  /** `tasks/get`: the task's current state. */
  async getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    const result = await this.#taskRequest('tasks/get', { taskId }, options);
    return readTask(result, this.name, 'tasks/get');
  }

  /**
   * `tasks/result`: the result of the task's request (for a tool, its CallToolResult, checked
   * against the outputSchema of a tool started here). The server answers once the task is
   * terminal, so this waits for it, within the request's timeout.
   */
  async getTaskResult(taskId: string, options?: RequestOptions): Promise<CallToolResult> {
    const result = (await this.#taskRequest('tasks/result', { taskId }, options)) as CallToolResult;
    const tool = this.#taskTools?.get(taskId);
    if (tool === undefined) return result;
    this.#taskTools?.delete(taskId);
    return this.#outputSchemas.check(tool, result);
  }

  /** `tasks/list` (needs `tasks.list`): every task (all pages merged), or one page with `cursor`. */
  listTasks(params?: { cursor?: string }, options?: RequestOptions): Promise<ListTasksResult> {
    return this.#list('tasks/list', 'tasks', params, options) as Promise<ListTasksResult>;
  }

  /** `tasks/cancel` (needs `tasks.cancel`): resolves with the task as the server now reports it. */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<Task> {
    const result = await this.#taskRequest('tasks/cancel', { taskId }, options);
    return readTask(result, this.name, 'tasks/cancel');
  }

  async #taskRequest(method: string, params: JsonObject, options?: RequestOptions): Promise<unknown> {
    const session = await this.#supervisor.whenReady(method, {
      signal: options?.signal,
      timeout: options?.timeout ?? this.#options.requestTimeout,
    });
    const refusal = tasksMethodRefusal(session, method);
    if (refusal) throw taskCapabilityError(method, refusal, this.name);
    return this.request(method, params, options);
  }

  /**
   * A `required` tool: created as a task, then its result (tasks/result waits for the terminal
   * state). Giving up (abort, timeout) while waiting cancels the task with tasks/cancel, as the
   * 2025-11-25 cancellation rules ask for task-augmented requests, when the server declares it.
   */
  async #runToolTask(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const task = await this.startToolTask(params, options);
    try {
      return await this.getTaskResult(task.taskId, options);
    } catch (error) {
      const session = this.#supervisor.session;
      const gaveUp = error instanceof AbortError || error instanceof RequestTimeoutError;
      if (gaveUp && session && tasksMethodRefusal(session, 'tasks/cancel') === undefined) {
        this.request('tasks/cancel', { taskId: task.taskId }).catch((cancelError: Error) =>
          debug('%s: tasks/cancel %s failed: %s', this.name, task.taskId, cancelError.message),
        );
      }
      throw error;
    }
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

  /** SEP-2640: the skills the server serves; reads no skill file (files are fetched on need). */
  listSkills(params?: { cursor?: string }, options?: RequestOptions): Promise<ListSkillsResult> {
    return this.#list('skills/list', 'skills', params, options) as Promise<ListSkillsResult>;
  }

  /**
   * Reads one file listed in a skill's `resources` and returns it only if its byte size and
   * sha256 digest match the entry; otherwise rejects with SkillVerificationError.
   */
  async readSkillFile(entry: SkillEntry, uri: string, options?: RequestOptions): Promise<VerifiedSkillFile> {
    const file = listedSkillFile(entry, uri, this.name);
    const result = await this.readResource({ uri }, options);
    return verifySkillFile(file, result, this.name);
  }

  /**
   * Loads a skill: reads its SKILL.md (size and digest verified), then checks its YAML
   * frontmatter field by field against the entry's. Rejects with SkillVerificationError on any
   * discrepancy. Supporting files are read later, one by one, with readSkillFile.
   */
  async loadSkill(entry: SkillEntry, options?: RequestOptions): Promise<LoadedSkill> {
    const file = await this.readSkillFile(entry, entry.uri, options);
    return loadVerifiedSkill(entry, file, this.name);
  }

  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.#list('prompts/list', 'prompts', params, options) as Promise<ListPromptsResult>;
  }

  /**
   * Gets a prompt. Its arguments are checked first against what the prompt declares (the prompts
   * are listed first if they were not in this session): a missing required one, an undeclared
   * name or a value that is not a string is a UsageError, nothing sent. A result that is not a
   * GetPromptResult is a ProtocolError.
   */
  async getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    this.#promptArguments.check(params);
    if (!this.#promptArguments.listed) {
      // A server that cannot list its prompts leaves the check to itself.
      const listed = await this.listPrompts(undefined, options).catch((error: unknown) => {
        if (error instanceof McpError) return undefined;
        throw error;
      });
      if (listed) this.#promptArguments.check(params);
    }
    const result = await this.request('prompts/get', params, options);
    return readGetPromptResult(result, params.name, this.name);
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
    if (method === 'tasks/list') {
      const session = await this.#supervisor.whenReady(method, {
        signal: options?.signal,
        timeout: options?.timeout ?? this.#options.requestTimeout,
      });
      const refusal = tasksMethodRefusal(session, method);
      if (refusal) throw taskCapabilityError(method, refusal, this.name);
    }
    const request = (page: JsonObject) =>
      this.request(method, page, options) as Promise<Record<string, unknown>>;
    const invalidate = () => this.#cacheMade?.invalidate(method);
    let result: Record<string, unknown> = await listPages(request, invalidate, {
      method,
      key,
      params,
      server: this.name,
    });
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
    if (method === 'prompts/list') this.#promptArguments.remember(result);
    if (method === 'tools/list') {
      this.#outputSchemas.remember(result);
      this.#toolTasks.remember(result);
    }
    return result;
  }

  readonly #warn = (warning: ClientWarning): void => {
    debug('%s', warning.message);
    if (channels.warning.hasSubscribers) channels.warning.publish({ server: this.name, warning });
    this.emit('warning', warning);
  };

  #onSession(session: Session): void {
    this.#lastSession = session;
    this.#cacheMade?.clear();
    this.#outputSchemasMade?.clear();
    this.#promptArgumentsMade?.clear();
    this.#toolTasksMade?.clear();
    this.#taskTools = undefined;
    this.#subscriptionsMade?.attach(session);
  }

  /** Runs after the notification itself was passed on as `'notification'`. */
  #onNotification(notification: JsonRpcNotification): void {
    const { method, params } = notification;
    if (method === 'notifications/message') {
      this.emit('log', params as unknown as LogMessage);
      return;
    }
    if (method === 'notifications/tasks/status') {
      if (typeof params?.taskId === 'string' && typeof params.status === 'string') {
        const { _meta: _ignored, ...task } = params;
        this.emit('taskStatus', task as unknown as Task);
      }
      return;
    }
    const onListenStreams = this.#lastSession?.changeNotifications === 'listen';
    if (onListenStreams && method === 'notifications/cancelled' && params?.requestId !== undefined) {
      this.#subscriptions.serverCancelled(
        params.requestId as string,
        typeof params.reason === 'string' ? params.reason : undefined,
      );
      return;
    }
    // Where change notifications come on listen streams, they count only on one of ours.
    if (onListenStreams && !this.#subscriptions.accept(notification)) return;
    const changed = LIST_CHANGED[method];
    if (changed) {
      this.#cacheMade?.invalidate(...STALE_LISTS[changed]);
      if (changed === 'promptsListChanged') this.#promptArgumentsMade?.clear();
      if (changed === 'toolsListChanged') {
        this.#outputSchemasMade?.clear();
        this.#toolTasksMade?.clear();
      }
      this.emit(changed);
      return;
    }
    if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
      this.#cacheMade?.invalidateUri(params.uri);
      this.emit('resourceUpdated', { uri: params.uri });
    }
  }
}
