import { debug } from '../diagnostics.js';
import { AbortError, RequestTimeoutError, UsageError } from '../errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CallToolResult } from '../protocol/results.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import type { Listed } from './listed.js';
import { isTaskHandle } from './modern-task-wire.js';
import { ModernTasks } from './modern-tasks.js';
import type { RequestPipeline } from './request-pipeline.js';
import { readTask, type Task, taskCapabilityError, tasksMethodRefusal } from './tasks.js';

/** The longest close() waits for each `tasks/cancel` of a task callTool was following, ms. */
const CLOSE_CANCEL_TIMEOUT = 2000;

type ToolCall = { name: string; arguments?: Record<string, unknown> };

/** What TaskCalls needs of the Client. */
export interface TaskCallParts {
  readonly name: string;
  readonly requestTimeout: number;
  readonly requests: RequestPipeline;
  readonly listed: Listed;
  readonly listTools: (options?: RequestOptions) => Promise<unknown>;
  readonly session: () => Session | undefined;
  /** Reports a task status the client learnt by polling (modern era). */
  readonly taskStatus: (task: Task) => void;
}

/**
 * The Client's tool calls and tasks, one API for both flavours. Legacy (2025-11-25): task-augmented
 * tool calls, tasks/get, tasks/result and tasks/cancel, and a `required` tool run as a task by
 * callTool. Modern: the tasks extension (modern-tasks.ts), where the server decides.
 */
export class TaskCalls {
  readonly #name: string;
  readonly #requests: RequestPipeline;
  readonly #listed: Listed;
  readonly #listTools: (options?: RequestOptions) => Promise<unknown>;
  readonly #session: () => Session | undefined;
  readonly #modern: ModernTasks;
  readonly #requestTimeout: number;
  /** The tool of each task started here, by task id; made on the first task. */
  #taskTools: Map<string, string> | undefined;

  constructor(parts: TaskCallParts) {
    this.#name = parts.name;
    this.#requests = parts.requests;
    this.#listed = parts.listed;
    this.#listTools = parts.listTools;
    this.#session = parts.session;
    this.#requestTimeout = parts.requestTimeout;
    this.#modern = new ModernTasks({
      name: parts.name,
      requestTimeout: parts.requestTimeout,
      requests: parts.requests,
      session: parts.session,
      emit: parts.taskStatus,
      checkResult: (tool, result) => this.#listed.outputSchemas.check(tool, result),
    });
  }

  /**
   * The client is closing: cancels the tasks callTool follows (ModernTasks.cancelFollowed), each
   * `tasks/cancel` waited for up to CLOSE_CANCEL_TIMEOUT; undefined when there are none.
   */
  cancelFollowed(): Promise<void> | undefined {
    return this.#modern.cancelFollowed(Math.min(this.#requestTimeout, CLOSE_CANCEL_TIMEOUT));
  }

  /** Forgets the tasks started on an earlier session. */
  clear(): void {
    this.#taskTools = undefined;
    this.#modern.clear();
  }

  /**
   * callTool: on a legacy server that takes task-augmented calls, the tools are listed first and
   * a `required` tool runs as a task; in the modern era a task handle is followed to its end.
   */
  callTool(params: ToolCall, options?: RequestOptions): Promise<CallToolResult> {
    const session = this.#session();
    const tasks = this.#listed.toolTasks;
    if (session?.era === 'legacy' && (tasks.mustList(session) || tasks.mustRunAsTask(session, params?.name)))
      return this.#legacyCallTool(session, params, options);
    const started = Date.now();
    return this.#requests
      .request('tools/call', params, options)
      .then((result) =>
        isTaskHandle(result)
          ? this.#modern.follow(params.name, result, options ?? {}, started)
          : this.#listed.outputSchemas.check(params?.name, result as CallToolResult),
      );
  }

  /** A legacy server that declares task-augmented tools/call: list first, run as a task if required. */
  async #legacyCallTool(
    session: Session,
    params: ToolCall,
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const tasks = this.#listed.toolTasks;
    if (tasks.mustList(session)) await this.#listTools(options);
    if (tasks.mustRunAsTask(session, params.name)) return this.#runToolTask(params, options);
    const result = (await this.#requests.request('tools/call', params, options)) as CallToolResult;
    return this.#listed.outputSchemas.check(params.name, result);
  }

  async startToolTask(params: ToolCall & { ttl?: number }, options?: RequestOptions): Promise<Task> {
    const { ttl, ...call } = params;
    if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0))
      throw new UsageError(`startToolTask: ttl must be a whole number of ms, got ${String(ttl)}`, {
        server: this.#name,
      });
    const session = await this.#requests.whenReady('tools/call', options);
    if (session.era === 'modern') return this.#modern.start(session, call as ToolCall & JsonObject, options);
    const tasks = this.#listed.toolTasks;
    if (tasks.mustList(session)) await this.#listTools(options);
    const refusal = tasks.refusal(session, call.name);
    if (refusal) throw taskCapabilityError('tools/call', refusal, this.#name);
    const task = await tasks.start(
      (method, taskParams, requestOptions) => this.#requests.request(method, taskParams, requestOptions),
      call as JsonObject,
      ttl,
      options,
    );
    this.#taskTools ??= new Map();
    this.#taskTools.set(task.taskId, call.name);
    return task;
  }

  async getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    if (await this.#isModern(options)) return this.#modern.getTask(taskId, options);
    return readTask(await this.#taskRequest('tasks/get', { taskId }, options), this.#name, 'tasks/get');
  }

  async getTaskResult(taskId: string, options?: RequestOptions): Promise<CallToolResult> {
    if (await this.#isModern(options)) return this.#modern.getTaskResult(taskId, options);
    const result = (await this.#taskRequest('tasks/result', { taskId }, options)) as CallToolResult;
    const tool = this.#taskTools?.get(taskId);
    if (tool === undefined) return result;
    this.#taskTools?.delete(taskId);
    return this.#listed.outputSchemas.check(tool, result);
  }

  async cancelTask(taskId: string, options?: RequestOptions): Promise<Task> {
    if (await this.#isModern(options)) return this.#modern.cancelTask(taskId, options);
    return readTask(await this.#taskRequest('tasks/cancel', { taskId }, options), this.#name, 'tasks/cancel');
  }

  async #isModern(options: RequestOptions | undefined): Promise<boolean> {
    const session = this.#session() ?? (await this.#requests.whenReady('tasks/get', options));
    return session.era === 'modern';
  }

  async #taskRequest(method: string, params: JsonObject, options?: RequestOptions): Promise<unknown> {
    const session = await this.#requests.whenReady(method, options);
    const refusal = tasksMethodRefusal(session, method);
    if (refusal) throw taskCapabilityError(method, refusal, this.#name);
    return this.#requests.request(method, params, options);
  }

  /**
   * A `required` tool: created as a task, then its result (tasks/result waits for the terminal
   * state). Giving up (abort, timeout) while waiting cancels the task with tasks/cancel, as the
   * 2025-11-25 cancellation rules ask for task-augmented requests, when the server declares it.
   */
  async #runToolTask(params: ToolCall, options?: RequestOptions): Promise<CallToolResult> {
    const task = await this.startToolTask(params, options);
    try {
      return await this.getTaskResult(task.taskId, options);
    } catch (error) {
      const session = this.#session();
      const gaveUp = error instanceof AbortError || error instanceof RequestTimeoutError;
      if (gaveUp && session && tasksMethodRefusal(session, 'tasks/cancel') === undefined) {
        this.#requests
          .request('tasks/cancel', { taskId: task.taskId }, undefined)
          .catch((cancelError: Error) =>
            debug('%s: tasks/cancel %s failed: %s', this.#name, task.taskId, cancelError.message),
          );
      }
      throw error;
    }
  }
}
