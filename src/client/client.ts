import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { attributeTo } from '../attribution.js';
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
  ReadResourceResult,
} from '../protocol/results.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import { SafeEmitter } from '../user-code.js';
import { missingCapability } from './capabilities.js';
import { type ClientEvents, prepareLifecycleEvent, watchListListeners } from './client-events.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import { Listed } from './listed.js';
import { listAll } from './lists.js';
import { checkedLogLevel } from './log-level.js';
import { routeNotification } from './notification-router.js';
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from './options.js';
import { checkPromptCall, readGetPromptResult } from './prompts.js';
import { normalizeRequestOptions } from './request-options.js';
import { RequestPipeline } from './request-pipeline.js';
import { announceRootsChange, type Root, replacedRoots } from './roots.js';
import { sessionContextFor } from './session-context.js';
import {
  type ListSkillsResult,
  type LoadedSkill,
  loadVerifiedSkill,
  readSkillFile,
  type SkillEntry,
  type VerifiedSkillFile,
} from './skills.js';
import { Subscriptions } from './subscriptions.js';
import { type ClientState, Supervisor, type SupervisorEvents } from './supervisor.js';
import { TaskCalls } from './task-calls.js';
import type { ListTasksResult, Task } from './tasks.js';
import { type WarningSink, warningSink } from './warnings.js';

export type { ClientEvents };

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
  readonly #requests: RequestPipeline;
  readonly #listed: Listed;
  readonly #tasks: TaskCalls;
  /** Made on first use: attached to the latest session. */
  #subscriptionsMade: Subscriptions | undefined;
  #roots: readonly Root[] | undefined;
  readonly #warn: WarningSink;

  constructor(options: ClientOptions) {
    super();
    this.#options = resolveClientOptions(options);
    this.name = this.#options.name;
    this.#warn = warningSink(this.name, (warning) => this.emit('warning', warning));
    this.#logLevel = this.#options.logLevel;
    // Modern servers send change notifications only on request: listen while someone listens.
    watchListListeners(this, () => this.#subscriptions);
    this.#roots = this.#options.roots;
    const context = sessionContextFor(this.#options, {
      roots: () => this.#roots,
      logLevel: () => this.#logLevel,
      warn: this.#warn,
    });
    this.#supervisor = new Supervisor(this.#options, context, (event, args) =>
      this.#fromSupervisor(event, args),
    );
    this.#requests = new RequestPipeline(this.name, this.#supervisor, this.#options);
    this.#listed = new Listed(this.name, this.#options.validateSchema);
    this.#tasks = new TaskCalls(
      this.name,
      this.#requests,
      this.#listed,
      (listOptions) => this.listTools(undefined, listOptions),
      () => this.#supervisor.session,
    );
  }

  /** Made attached to the latest session, as one made with the client and attached to each would be. */
  get #subscriptions(): Subscriptions {
    if (!this.#subscriptionsMade) {
      this.#subscriptionsMade = new Subscriptions(this.name, this.#options.requestTimeout, this.#warn);
      if (this.#lastSession) this.#subscriptionsMade.attach(this.#lastSession);
    }
    return this.#subscriptionsMade;
  }

  /**
   * The Supervisor's events: the lifecycle ones and every notification are passed on as they are
   * (a notification first, then what the Client reads from it); a new session is internal.
   */
  #fromSupervisor(event: keyof SupervisorEvents, args: unknown[]): void {
    if (event === 'session') {
      this.#onSession(args[0] as Session);
      return;
    }
    prepareLifecycleEvent(event, args, this.name);
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
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<unknown> {
    return this.#requests.request(method, params, options);
  }

  /**
   * Checks that the server answers; resolves with the round trip in ms. Legacy: `ping`. The
   * modern era has no ping: a `server/discover` round trip stands for it.
   */
  async ping(options?: RequestOptions): Promise<number> {
    const checked = normalizeRequestOptions(options, this.name, 'ping');
    const session = await this.#requests.whenReady('ping', checked);
    const started = performance.now();
    await this.#requests.request(session.era === 'modern' ? 'server/discover' : 'ping', undefined, checked);
    return performance.now() - started;
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
    this.#roots = replacedRoots(this.#roots, roots, this.name);
    announceRootsChange(this.#supervisor.session, this.name);
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
    if (this.#tasks.handlesCall(session, params?.name))
      return this.#tasks.callTool(session!, params, options);
    return this.request('tools/call', params, options).then((result) =>
      this.#listed.outputSchemas.check(params?.name, result as CallToolResult),
    );
  }

  /**
   * Legacy tasks (2025-11-25): sends a task-augmented `tools/call` (`task: { ttl? }`) and resolves
   * with the Task the server created; `getTaskResult` gets its result. Only for a server that
   * declares `tasks.requests.tools.call` and a listed tool whose `execution.taskSupport` is
   * `optional` or `required` (CapabilityError otherwise, nothing sent). The tools are listed
   * first if they never were.
   */
  startToolTask(
    params: { name: string; arguments?: Record<string, unknown>; ttl?: number },
    options?: RequestOptions,
  ): Promise<Task> {
    return this.#tasks.startToolTask(params, options);
  }

  /** `tasks/get`: the task's current state. */
  getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.#tasks.getTask(taskId, options);
  }

  /**
   * `tasks/result`: the result of the task's request (for a tool, its CallToolResult, checked
   * against the outputSchema of a tool started here). The server answers once the task is
   * terminal, so this waits for it, within the request's timeout.
   */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<CallToolResult> {
    return this.#tasks.getTaskResult(taskId, options);
  }

  /** `tasks/list` (needs `tasks.list`): every task (all pages merged), or one page with `cursor`. */
  listTasks(params?: { cursor?: string }, options?: RequestOptions): Promise<ListTasksResult> {
    return this.#list('tasks/list', 'tasks', params, options) as Promise<ListTasksResult>;
  }

  /** `tasks/cancel` (needs `tasks.cancel`): resolves with the task as the server now reports it. */
  cancelTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.#tasks.cancelTask(taskId, options);
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
  readSkillFile(entry: SkillEntry, uri: string, options?: RequestOptions): Promise<VerifiedSkillFile> {
    return readSkillFile((read) => this.readResource({ uri: read }, options), entry, uri, this.name);
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
    await checkPromptCall(this.#listed.promptArguments, params, () => this.listPrompts(undefined, options));
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
    const session = await this.#requests.whenReady('resources/subscribe', options);
    const missing = missingCapability('resources/subscribe', session.serverCapabilities);
    if (missing) throw new CapabilityError('resources/subscribe', missing, { server: this.name });
    await this.#subscriptions.subscribe(uri, (method, params) => this.request(method, params, options));
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.#subscriptions.unsubscribe(uri, (method, params) => this.request(method, params, options));
  }

  #list(method: string, key: string, params: { cursor?: string } | undefined, options?: RequestOptions) {
    return listAll(this.#requests, this.#listed, this.name, { method, key }, params, options);
  }

  #onSession(session: Session): void {
    this.#lastSession = session;
    this.#requests.cache?.clear();
    this.#listed.forgetAll();
    this.#tasks.clear();
    this.#subscriptionsMade?.attach(session);
  }

  /** Runs after the notification itself was passed on as `'notification'`. */
  #onNotification(notification: JsonRpcNotification): void {
    routeNotification(notification, {
      session: this.#lastSession,
      cache: this.#requests.cache,
      listed: this.#listed,
      subscriptions: () => this.#subscriptions,
      emit: (event, ...args) => (this as EventEmitter).emit(event, ...args),
    });
  }
}
