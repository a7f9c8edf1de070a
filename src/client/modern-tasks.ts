import { randomUUID } from 'node:crypto';
import { debug } from '../diagnostics.js';
import { AbortError, CapabilityError, McpError, ProtocolError, RequestTimeoutError } from '../errors.js';
import { INTERNAL_ERROR } from '../jsonrpc/error-codes.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { TASKS_EXTENSION } from '../protocol/extensions.js';
import type { CallToolResult } from '../protocol/results.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import {
  DEFAULT_POLL_INTERVAL,
  declaresTasks,
  isTaskHandle,
  MIN_POLL_INTERVAL,
  readModernTask,
} from './modern-task-wire.js';
import type { RequestPipeline } from './request-pipeline.js';
import { type Task, TERMINAL_TASK_STATUSES } from './tasks.js';
import { waitFor } from './wait.js';

/** What the client keeps of one task it follows. */
interface Tracked {
  readonly taskId: string;
  /** The tool the task runs, when started here (its outputSchema checks the result). */
  readonly tool: string | undefined;
  /** The `inputRequests` keys answered or being answered: each is answered once. */
  readonly asked: Set<string>;
  /** Settles once every answer begun so far was sent (or failed). */
  answering: Promise<void> | undefined;
  /** Why an answer could not be given; thrown once by the wait for the task's end. */
  failure: unknown;
  /** The status and message last reported as a `'taskStatus'` event. */
  reported: string | undefined;
  /** Aborted when the task is over for the client: its handlers stop. */
  readonly controller: AbortController;
  /** A startToolTask the server answered at once: no server task, its result kept here. */
  local?: { task: Task; result: CallToolResult };
}

/** What a wait for a task's end needs to know. */
interface WaitLimits {
  /** The method errors name (`tools/call` for callTool, `tasks/get` for getTaskResult). */
  readonly method: string;
  readonly signal: AbortSignal | undefined;
  readonly timeout: number;
  readonly deadline: number;
}

/** What ModernTasks needs of the Client. */
export interface ModernTaskParts {
  readonly name: string;
  readonly requestTimeout: number;
  readonly requests: RequestPipeline;
  readonly session: () => Session | undefined;
  /** Reports a status the client learnt (the `'taskStatus'` event). */
  readonly emit: (task: Task) => void;
  /** Checks a tool's result against its outputSchema. */
  readonly checkResult: (tool: string, result: CallToolResult) => CallToolResult | Promise<CallToolResult>;
}

/**
 * The tasks extension (SEP-2663, modern era). The server decides which `tools/call` becomes a
 * task; callTool follows one to its end (polling `tasks/get` at the server's `pollIntervalMs`,
 * answering its `inputRequests` with the handlers through `tasks/update`, `tasks/cancel` when the
 * caller gives up); startToolTask hands the task to the caller, who uses getTask, getTaskResult
 * and cancelTask as with legacy tasks. Every new status the client learns is a `'taskStatus'`.
 */
export class ModernTasks {
  readonly #parts: ModernTaskParts;
  readonly #tracked = new Map<string, Tracked>();
  /** The tasks a callTool is following to their end (not those handed over). */
  readonly #followed = new Set<Tracked>();

  constructor(parts: ModernTaskParts) {
    this.#parts = parts;
  }

  /** Forgets every task (a new session): their handlers stop. */
  clear(): void {
    for (const tracked of this.#tracked.values()) tracked.controller.abort(new Error('the session ended'));
    this.#tracked.clear();
    this.#followed.clear();
  }

  /**
   * callTool got a task handle: waits for the task's end within the call's timeout (counted from
   * `started`) and resolves with its result. Giving up (abort, timeout, an input that cannot be
   * answered) sends `tasks/cancel`.
   */
  async follow(
    tool: string,
    handle: unknown,
    options: RequestOptions,
    started: number,
  ): Promise<CallToolResult> {
    const task = readModernTask(handle, this.#parts.name, `tools/call ${tool}`);
    const tracked = this.#track(task.taskId, tool);
    this.#followed.add(tracked);
    try {
      return await this.#untilDone(tracked, task, this.#limits('tools/call', options, started));
    } catch (error) {
      void this.#cancel(tracked, undefined);
      throw error;
    } finally {
      this.#followed.delete(tracked);
    }
  }

  /**
   * The client is closing: the tasks callTool follows are cancelled (`tasks/cancel`, each within
   * `timeout` ms), as if their callers gave up. Tasks handed over by startToolTask are the caller's
   * and go on. Undefined when no task is followed.
   */
  cancelFollowed(timeout: number): Promise<void> | undefined {
    if (this.#followed.size === 0) return undefined;
    const cancels = [...this.#followed].map((tracked) => this.#cancel(tracked, timeout));
    return Promise.all(cancels).then(() => {});
  }

  /** Stops following a task and sends `tasks/cancel` for it, unless that was done already. */
  #cancel(tracked: Tracked, timeout: number | undefined): Promise<void> {
    this.#followed.delete(tracked);
    if (this.#tracked.get(tracked.taskId) !== tracked) return Promise.resolve();
    this.#forget(tracked);
    return this.#parts.requests
      .request('tasks/cancel', { taskId: tracked.taskId }, timeout === undefined ? undefined : { timeout })
      .then(
        () => {},
        (cancelError: Error) =>
          debug('%s: tasks/cancel %s failed: %s', this.#parts.name, tracked.taskId, cancelError.message),
      );
  }

  /**
   * startToolTask: sends the call (the extension has no way to ask for a task) and resolves with
   * the task the server made of it. A server that answers at once instead gets a task made here,
   * already `completed`, whose id starts with `local-`: getTaskResult resolves with that answer.
   */
  async start(
    session: Session,
    params: { name: string } & JsonObject,
    options?: RequestOptions,
  ): Promise<Task> {
    if (!declaresTasks(session))
      throw new CapabilityError(
        'tools/call',
        `the server does not declare the ${TASKS_EXTENSION} extension, so it makes no tool call a task`,
        { server: this.#parts.name },
      );
    const result = await this.#parts.requests.request('tools/call', params, options);
    if (isTaskHandle(result)) {
      const task = readModernTask(result, this.#parts.name, `tools/call ${params.name}`);
      this.#report(task, this.#track(task.taskId, params.name));
      return task;
    }
    const now = new Date().toISOString();
    const task: Task = {
      taskId: `local-${randomUUID()}`,
      status: 'completed',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: null,
    };
    const tracked = this.#track(task.taskId, params.name);
    tracked.local = { task, result: result as CallToolResult };
    this.#report(task, tracked);
    return task;
  }

  /** `tasks/get`; input requests it shows are answered in the background, each once. */
  async getTask(taskId: string, options?: RequestOptions): Promise<Task> {
    const known = this.#tracked.get(taskId);
    if (known?.local) return known.local.task;
    await this.#refuseUnknown(taskId, 'tasks/get', options);
    const task = await this.#get(taskId, options);
    const tracked = this.#tracked.get(taskId) ?? this.#track(taskId, undefined);
    this.#observe(task, tracked, this.#parts.requestTimeout);
    if (TERMINAL_TASK_STATUSES.has(task.status)) tracked.controller.abort(new Error('the task is over'));
    return task;
  }

  /** Polls `tasks/get` until the task ends, within the request's timeout; its result, or why it has none. */
  async getTaskResult(taskId: string, options: RequestOptions = {}): Promise<CallToolResult> {
    const started = Date.now();
    const known = this.#tracked.get(taskId);
    if (known?.local) {
      this.#forget(known);
      return this.#parts.checkResult(known.tool!, known.local.result);
    }
    await this.#refuseUnknown(taskId, 'tasks/get', options);
    const tracked = this.#tracked.get(taskId) ?? this.#track(taskId, undefined);
    return this.#untilDone(tracked, undefined, this.#limits('tasks/get', options, started));
  }

  /**
   * `tasks/cancel`, then `tasks/get`: the task as the server now reports it (cancellation is
   * cooperative, so it may still be `working`, or end otherwise). A task made here is returned as it is.
   */
  async cancelTask(taskId: string, options?: RequestOptions): Promise<Task> {
    const known = this.#tracked.get(taskId);
    if (known?.local) return known.local.task;
    await this.#refuseUnknown(taskId, 'tasks/cancel', options);
    await this.#parts.requests.request('tasks/cancel', { taskId }, options);
    if (known) this.#forget(known);
    const task = await this.#get(taskId, options);
    this.#parts.emit(task);
    return task;
  }

  /** The whole wait ends at the request's timeout, or its maxTotalTimeout if shorter (a task sends no progress). */
  #limits(method: string, options: RequestOptions, started: number): WaitLimits {
    const timeout = Math.min(
      options.timeout ?? this.#parts.requestTimeout,
      options.maxTotalTimeout ?? Infinity,
    );
    return { method, signal: options.signal, timeout, deadline: started + timeout };
  }

  /** A task's end: observed, answered, polled at its interval until terminal. */
  async #untilDone(tracked: Tracked, first: Task | undefined, limits: WaitLimits): Promise<CallToolResult> {
    const { method, signal, timeout, deadline } = limits;
    const server = this.#parts.name;
    const timedOut = () => {
      throw new RequestTimeoutError(method, timeout, { server });
    };
    const aborted = (reason: unknown) => {
      throw new AbortError(method, reason, { server });
    };
    let task = first;
    for (;;) {
      if (task !== undefined) {
        this.#observe(task, tracked, deadline - Date.now());
        if (TERMINAL_TASK_STATUSES.has(task.status)) {
          this.#forget(tracked);
          return this.#outcome(task, tracked.tool, method);
        }
        if (tracked.answering)
          await waitFor(tracked.answering, {
            timeout: deadline - Date.now(),
            signal,
            onTimeout: timedOut,
            onAbort: aborted,
          });
        if (tracked.failure !== undefined) {
          const failure = tracked.failure;
          tracked.failure = undefined;
          throw failure;
        }
        const interval = Math.max(MIN_POLL_INTERVAL, task.pollInterval ?? DEFAULT_POLL_INTERVAL);
        const pause = Math.min(interval, deadline - Date.now());
        await waitFor(undefined, {
          timeout: Math.max(0, pause),
          signal,
          onTimeout: () => undefined,
          onAbort: aborted,
        });
      }
      if (Date.now() >= deadline) timedOut();
      try {
        task = await this.#get(tracked.taskId, { signal, timeout: Math.max(1, deadline - Date.now()) });
      } catch (error) {
        if (error instanceof RequestTimeoutError) timedOut();
        if (error instanceof AbortError) aborted(signal?.reason);
        throw error;
      }
    }
  }

  /** A new status is reported; new input requests are answered (in the background, within `budget` ms). */
  #observe(task: Task, tracked: Tracked, budget: number): void {
    this.#report(task, tracked);
    if (task.status !== 'input_required') return;
    const requests = task.inputRequests;
    if (typeof requests !== 'object' || requests === null) return;
    const fresh = Object.entries(requests).filter(([key]) => !tracked.asked.has(key));
    if (fresh.length === 0) return;
    for (const [key] of fresh) tracked.asked.add(key);
    const answered = this.#answer(tracked, Object.fromEntries(fresh), Math.max(1, budget)).catch(
      (error: unknown) => {
        debug(
          '%s: the input of task %s could not be given: %s',
          this.#parts.name,
          tracked.taskId,
          String(error),
        );
        for (const [key] of fresh) tracked.asked.delete(key);
        tracked.failure ??= error;
      },
    );
    const before = tracked.answering;
    tracked.answering = before ? Promise.all([before, answered]).then(() => undefined) : answered;
  }

  async #answer(tracked: Tracked, requests: JsonObject, budget: number): Promise<void> {
    const session = this.#parts.session();
    if (!session?.answerInputs)
      throw new ProtocolError(`task ${tracked.taskId} asks for input, but the session is not a modern one`, {
        server: this.#parts.name,
      });
    const { signal } = tracked.controller;
    const inputResponses = await session.answerInputs(requests, {
      method: 'tools/call',
      signal,
      budget,
      timeout: budget,
    });
    if (inputResponses === undefined) return;
    await this.#parts.requests.request(
      'tasks/update',
      { taskId: tracked.taskId, inputResponses },
      { signal },
    );
  }

  #report(task: Task, tracked: Tracked): void {
    const state = `${task.status}\n${task.statusMessage ?? ''}`;
    if (tracked.reported === state) return;
    tracked.reported = state;
    this.#parts.emit(task);
  }

  /** A terminal task's result: completed, its CallToolResult; failed, its JSON-RPC error; cancelled, an AbortError. */
  #outcome(task: Task, tool: string | undefined, method: string): CallToolResult | Promise<CallToolResult> {
    const server = this.#parts.name;
    if (task.status === 'completed') {
      const result = task.result;
      if (typeof result !== 'object' || result === null || Array.isArray(result))
        throw new ProtocolError(`task ${task.taskId} completed without a result object`, { server });
      return tool === undefined
        ? (result as CallToolResult)
        : this.#parts.checkResult(tool, result as CallToolResult);
    }
    if (task.status === 'failed') {
      const error = (task.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
      const code = typeof error.code === 'number' ? error.code : INTERNAL_ERROR;
      const message =
        typeof error.message === 'string'
          ? error.message
          : (task.statusMessage ?? `task ${task.taskId} failed`);
      throw new McpError(code, message, error.data, { server });
    }
    const why = task.statusMessage ? `: ${task.statusMessage}` : '';
    throw new AbortError(method, new Error(`task ${task.taskId} was cancelled${why}`), { server });
  }

  async #get(taskId: string, options?: RequestOptions): Promise<Task> {
    const result = await this.#parts.requests.request('tasks/get', { taskId }, options);
    return readModernTask(result, this.#parts.name, 'tasks/get');
  }

  /** Refuses a task method on a server without the extension, unless it made this task. */
  async #refuseUnknown(taskId: string, method: string, options: RequestOptions | undefined): Promise<void> {
    const session = await this.#parts.requests.whenReady(method, options);
    if (declaresTasks(session) || this.#tracked.has(taskId)) return;
    throw new CapabilityError(
      method,
      `the server does not declare the ${TASKS_EXTENSION} extension needed by ${method}`,
      {
        server: this.#parts.name,
      },
    );
  }

  #track(taskId: string, tool: string | undefined): Tracked {
    const tracked: Tracked = {
      taskId,
      tool,
      asked: new Set(),
      answering: undefined,
      failure: undefined,
      reported: undefined,
      controller: new AbortController(),
    };
    this.#tracked.set(taskId, tracked);
    return tracked;
  }

  #forget(tracked: Tracked): void {
    tracked.controller.abort(new Error('the task is over'));
    if (this.#tracked.get(tracked.taskId) === tracked) this.#tracked.delete(tracked.taskId);
  }
}
