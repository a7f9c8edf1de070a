import type { EventEmitter } from 'node:events';
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
import { type ClientEvents, prepareLifecycleEvent, watchListListeners } from './client-events.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import { LatestSession } from './latest-session.js';
import { listAll } from './lists.js';
import { type ClientOptions, type ResolvedClientOptions, resolveClientOptions } from './options.js';
import { checkPromptCall, readGetPromptResult } from './prompts.js';
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
import { type ClientState, Supervisor, type SupervisorEvents } from './supervisor.js';
import type { ListTasksResult, Task } from './tasks.js';
import { type WarningSink, warningSink } from './warnings.js';

export type { ClientEvents };

/**
 * An MCP client for one server. Validates every option at construction and starts nothing;
 * `connect()` starts the server, detects the era and resolves when ready; the server is restarted
 * with backoff if it dies; `close()` (or `await using`) stops everything.
 *
 * It is a Node `EventEmitter` of {@link ClientEvents} (`client.on('ready', ...)`); a listener
 * that throws does not stop the others, and its error is thrown again on a later turn of the event loop.
 */
export class Client extends SafeEmitter<ClientEvents> {
  /** The `name` option: a label for events, errors and logs. */
  readonly name: string;
  readonly #options: ResolvedClientOptions;
  readonly #supervisor: Supervisor;
  #logLevel: LogLevel | undefined;
  readonly #requests: RequestPipeline;
  readonly #latest: LatestSession;
  #roots: readonly Root[] | undefined;
  readonly #warn: WarningSink;

  /**
   * Checks every option and starts nothing; `connect()` starts the server.
   *
   * @throws {@link ConfigError} when an option is missing or invalid; `key` names it.
   */
  constructor(options: ClientOptions) {
    super();
    this.#options = resolveClientOptions(options);
    this.name = this.#options.name;
    this.#warn = warningSink(this.name, (warning) => this.emit('warning', warning));
    this.#logLevel = this.#options.logLevel;
    // Modern servers send change notifications only on request: listen while someone listens.
    watchListListeners(this, () => this.#latest.subscriptions);
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
    this.#latest = new LatestSession({
      ...this.#options,
      warn: this.#warn,
      requests: this.#requests,
      listTools: (listOptions) => this.listTools(undefined, listOptions),
      currentSession: () => this.#supervisor.session,
      taskStatus: (task) => this.emit('taskStatus', task),
    });
  }

  /**
   * The Supervisor's events: the lifecycle ones and every notification are passed on as they are
   * (a notification first, then what the Client reads from it); a new session is internal.
   */
  #fromSupervisor(event: keyof SupervisorEvents, args: unknown[]): void {
    if (event === 'session') return void this.#latest.follow(args[0] as Session);
    prepareLifecycleEvent(event, args, this.name);
    (this as EventEmitter).emit(event, ...args);
    if (event === 'notification')
      this.#latest.route(args[0] as JsonRpcNotification, (name, ...rest) =>
        (this as EventEmitter).emit(name, ...rest),
      );
  }

  /** Where the client is: `idle`, `connecting`, `ready`, `reconnecting` or `closed`. */
  get state(): ClientState {
    return this.#supervisor.state;
  }

  /** The era of the latest connection (`'modern'` or `'legacy'`); undefined before the first. */
  get era(): Era | undefined {
    return this.#latest.session?.era;
  }

  /** The protocol version of the latest connection; undefined before the first. */
  get protocolVersion(): string | undefined {
    return this.#latest.session?.protocolVersion;
  }

  /** The server's self-description (unverified), with unsafe icons left out. */
  get serverInfo(): Implementation | undefined {
    const info = this.#latest.session?.serverInfo;
    return info && screenIcons(info, { count: 0 });
  }

  /** What the server declared it can do, at the latest connection; undefined before the first. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#latest.session?.serverCapabilities;
  }

  /** The server's `instructions` for a model (unverified text), if it sent any. */
  get instructions(): string | undefined {
    return this.#latest.session?.instructions;
  }

  /** The current server process's pid, if one runs. */
  get pid(): number | undefined {
    return this.#supervisor.transport?.pid;
  }

  /**
   * Starts the server, detects the era, resolves when ready. Rejects at once for what a restart
   * cannot heal (missing executable, configuration, no common version), otherwise once the
   * `reconnect` policy has given up.
   *
   * @throws {@link SpawnError} (rejects) when the server's executable is missing or not executable (at once).
   * @throws {@link UnsupportedProtocolVersionError} (rejects) when no protocol version is supported by both sides (at once).
   * @throws {@link AuthError} (rejects) when OAuth authorization fails (at once).
   * @throws {@link ConfigError} (rejects) when the transport finds an option invalid (at once).
   * @throws {@link ConduitError} (rejects) once `reconnect` gives up: the last attempt's error, e.g. a
   * {@link ConnectTimeoutError}, an {@link HttpError} or a {@link ConnectionClosedError}.
   * @throws {@link ClientClosedError} (rejects) when `close()` is called first, or the client was closed.
   */
  connect(): Promise<void> {
    return this.#supervisor
      .connect()
      .catch((error: unknown) => Promise.reject(attributeTo(error, this.name)));
  }

  /**
   * Stops for good: first cancels the tasks callTool follows (`tasks/cancel`, up to 2 s each), then
   * the transport; resolves when it is closed (the process exits on its own schedule).
   */
  close(): Promise<void> {
    const cancelling = this.#latest.closing();
    return cancelling ? cancelling.then(() => this.#supervisor.close()) : this.#supervisor.close();
  }

  /** `await using client = new Client(...)` calls it: the same as `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Any request; resolves with the raw result. Waits for a (re)connection within its timeout.
   * Every request method of the client rejects with these errors too.
   *
   * @throws {@link McpError} (rejects) when the server answers with a JSON-RPC error.
   * @throws {@link RequestTimeoutError} (rejects) when no answer comes within `timeout` (default: `requestTimeout`).
   * @throws {@link AbortError} (rejects) when `options.signal` aborts.
   * @throws {@link CapabilityError} (rejects) when the server did not declare the capability the method needs; nothing is sent.
   * @throws {@link ConnectionClosedError} (rejects) when the connection closes before the answer.
   * @throws {@link ClientClosedError} (rejects) when the client is closed or gave up reconnecting.
   * @throws {@link UsageError} (rejects) when `options` is invalid, or before `connect()`.
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<unknown> {
    return this.#requests.request(method, params, options);
  }

  /**
   * Checks that the server answers; resolves with the round trip in ms. Legacy: `ping`. The
   * modern era has no ping: a `server/discover` round trip stands for it.
   */
  ping(options?: RequestOptions): Promise<number> {
    return this.#requests.ping(options);
  }

  /**
   * Any notification. Throws if the client is not ready.
   *
   * @throws {@link ClientClosedError} when the client is closed.
   * @throws {@link UsageError} when the client is not ready (idle, connecting or reconnecting).
   */
  notify(method: string, params?: JsonObject): void {
    this.#requests.notify(method, params);
  }

  /**
   * Changes the server log level through the session (legacy: `logging/setLevel`; modern: sent
   * with each request; not connected: at the next handshake). UsageError for a level that is not
   * one; a server that refuses it rejects (its McpError); either way the level stays as it was. A
   * server without `logging`: a `'warning'` (`log_level_unsupported`), as for the logLevel option.
   */
  async setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void> {
    this.#logLevel = await this.#requests.setLogLevel(level, options);
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
    return this.#list<ListToolsResult>('tools/list', 'tools', params, options);
  }

  /**
   * Calls a tool. A tool that failed resolves with `isError: true`: a result, not a rejection.
   * For a listed tool with an `outputSchema`, `structuredContent` is checked (ProtocolError if not).
   * A call the server runs as a task (either era) resolves with the task's result, within `timeout`.
   */
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    return this.#latest.tasks.callTool(params, options);
  }

  /**
   * Starts a tool call as a task and resolves with the Task; `getTaskResult` gets its result.
   * Legacy: a task-augmented `tools/call` (`task: { ttl? }`), only for a server that declares
   * `tasks.requests.tools.call` and a listed tool whose `execution.taskSupport` is `optional` or
   * `required` (CapabilityError otherwise, nothing sent). Modern: a server that declares the
   * `io.modelcontextprotocol/tasks` extension decides; one that answers at once gets a task made
   * by the client, already `completed` (its id starts with `local-`); `ttl` is not sent.
   */
  startToolTask(
    params: { name: string; arguments?: Record<string, unknown>; ttl?: number },
    options?: RequestOptions,
  ): Promise<Task> {
    return this.#latest.tasks.startToolTask(params, options);
  }

  /** `tasks/get`: the task's current state. */
  getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.#latest.tasks.getTask(taskId, options);
  }

  /**
   * `tasks/result`: the result of the task's request (for a tool, its CallToolResult, checked
   * against the outputSchema of a tool started here). The server answers once the task is
   * terminal, so this waits for it, within the request's timeout.
   */
  getTaskResult(taskId: string, options?: RequestOptions): Promise<CallToolResult> {
    return this.#latest.tasks.getTaskResult(taskId, options);
  }

  /** `tasks/list` (needs `tasks.list`): every task (all pages merged), or one page with `cursor`. */
  listTasks(params?: { cursor?: string }, options?: RequestOptions): Promise<ListTasksResult> {
    return this.#list<ListTasksResult>('tasks/list', 'tasks', params, options);
  }

  /** `tasks/cancel` (needs `tasks.cancel`): resolves with the task as the server now reports it. */
  cancelTask(taskId: string, options?: RequestOptions): Promise<Task> {
    return this.#latest.tasks.cancelTask(taskId, options);
  }

  /** Every resource (all pages merged), or one page when `cursor` is given. */
  listResources(params?: { cursor?: string }, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.#list<ListResourcesResult>('resources/list', 'resources', params, options);
  }

  /** Every resource template (all pages merged), or one page when `cursor` is given. */
  listResourceTemplates(
    params?: { cursor?: string },
    options?: RequestOptions,
  ): Promise<ListResourceTemplatesResult> {
    return this.#list<ListResourceTemplatesResult>(
      'resources/templates/list',
      'resourceTemplates',
      params,
      options,
    );
  }

  /** Reads a resource by URI (`resources/read`); a modern result may come from the cache while fresh. */
  readResource(params: { uri: string }, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', params, options) as Promise<ReadResourceResult>;
  }

  /** SEP-2640: the skills the server serves; reads no skill file (files are fetched on need). */
  listSkills(params?: { cursor?: string }, options?: RequestOptions): Promise<ListSkillsResult> {
    return this.#list<ListSkillsResult>('skills/list', 'skills', params, options);
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

  /** Every prompt (all pages merged), or one page when `cursor` is given. */
  listPrompts(params?: { cursor?: string }, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.#list<ListPromptsResult>('prompts/list', 'prompts', params, options);
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
    await checkPromptCall(this.#latest.listed.promptArguments, params, () =>
      this.listPrompts(undefined, options),
    );
    const result = await this.request('prompts/get', params, options);
    return readGetPromptResult(result, params.name, this.name);
  }

  /**
   * Asks for completions of a prompt or resource-template argument (`completion/complete`), e.g.
   * `ref: { type: 'ref/prompt', name: 'greet' }`. Needs the server's `completions` capability.
   */
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
  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.#latest.subscribe(uri, options);
  }

  /** Stops watching a resource (legacy: `resources/unsubscribe`; modern: leaves the listen filter). */
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.#latest.unsubscribe(uri, options);
  }

  #list<T>(method: string, key: string, params: { cursor?: string } | undefined, options?: RequestOptions) {
    return listAll(
      this.#requests,
      this.#latest.listed,
      this.name,
      { method, key },
      params,
      options,
    ) as Promise<T>;
  }
}
