import { CapabilityError, ProtocolError } from '../errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { ServerCapabilities } from '../protocol/types.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';

/** A tool's `execution.taskSupport` (2025-11-25); absent means `'forbidden'`. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A task's status; `completed`, `failed` and `cancelled` are final. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task of the legacy (2025-11-25) tasks utility, as the server reports it. */
export interface Task {
  /** The task's id, what `getTask`, `getTaskResult` and `cancelTask` take. */
  taskId: string;
  /** Where it is. */
  status: TaskStatus;
  /** The server's words about the status. */
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the server keeps the task from its creation, ms; null for unlimited. */
  ttl: number | null;
  /** The server's suggested polling interval, ms. */
  pollInterval?: number;
  [key: string]: unknown;
}

/** One page of `tasks/list`. */
export interface ListTasksResult {
  /** The tasks on this page. */
  tasks: Task[];
  /** Pass it back as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;

  [key: string]: unknown;
}

export const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

type Request = (method: string, params: JsonObject, options?: RequestOptions) => Promise<unknown>;

/** A Task as the server sent it, checked for the fields the client relies on. */
export function readTask(value: unknown, server: string, what: string): Task {
  const task = (value ?? {}) as Partial<Task>;
  if (typeof task.taskId !== 'string' || typeof task.status !== 'string') {
    throw new ProtocolError(
      `${what} did not carry a task with a taskId and a status: ${JSON.stringify(value)?.slice(0, 200)}`,
      {
        server,
      },
    );
  }
  return task as Task;
}

/**
 * The legacy tasks utility (2025-11-25) for tools: which tools support tasks (from tools/list),
 * whether a call must, may or must not be task-augmented, and the flow of one task-augmented
 * call. The server's `tasks.requests.tools.call` gates every augmentation: without it none is
 * sent; with it, only tools whose `taskSupport` is `optional` or `required` get one, and
 * `required` ones always do.
 */
export class ToolTasks {
  /** Made when a listed tool supports tasks. */
  #support: Map<string, TaskSupport> | undefined;
  readonly #server: string;
  #listed = false;

  constructor(server: string) {
    this.#server = server;
  }

  /** Reads the tools of a tools/list result. */
  remember(result: unknown): void {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(tools)) return;
    this.#listed = true;
    for (const tool of tools) {
      if (typeof tool?.name !== 'string') continue;
      const support = tool.execution?.taskSupport;
      if (support === 'optional' || support === 'required') {
        this.#support ??= new Map();
        this.#support.set(tool.name, support);
      } else this.#support?.delete(tool.name);
    }
  }

  clear(): void {
    this.#support = undefined;
    this.#listed = false;
  }

  /**
   * True when the tools must be listed before a call: the server takes task-augmented tool calls
   * (legacy) and no tools/list was read since, so a `required` tool could not be recognised.
   */
  mustList(session: Session): boolean {
    return !this.#listed && session.era === 'legacy' && toolCallTasksDeclared(session.serverCapabilities);
  }

  /** The tool's task support as last listed; `forbidden` when absent or never listed. */
  supportOf(name: string): TaskSupport {
    return this.#support?.get(name) ?? 'forbidden';
  }

  /** True when callTool must run `name` as a task: legacy, tools.call tasks declared, tool `required`. */
  mustRunAsTask(session: Session, name: string): boolean {
    return (
      session.era === 'legacy' &&
      toolCallTasksDeclared(session.serverCapabilities) &&
      this.supportOf(name) === 'required'
    );
  }

  /** Why `name` may not be started as a legacy task on this session, or undefined if it may. */
  refusal(session: Session, name: string): string | undefined {
    if (!toolCallTasksDeclared(session.serverCapabilities))
      return 'the server does not declare tasks.requests.tools.call: tool calls must not be task-augmented';
    if (this.supportOf(name) === 'forbidden')
      return `tool ${name} does not declare execution.taskSupport 'optional' or 'required' (as listed): it must not be called as a task`;
    return undefined;
  }

  /** Sends the task-augmented tools/call and returns the task it created. */
  async start(
    request: Request,
    params: JsonObject,
    ttl: number | undefined,
    options?: RequestOptions,
  ): Promise<Task> {
    const created = (await request(
      'tools/call',
      { ...params, task: ttl === undefined ? {} : { ttl } },
      options,
    )) as {
      task?: unknown;
    } | null;
    return readTask(created?.task, this.#server, `tools/call ${String(params.name)} as a task`);
  }
}

/** Whether the server accepts task-augmented tools/call (`tasks.requests.tools.call`). */
export function toolCallTasksDeclared(capabilities: ServerCapabilities): boolean {
  const tasks = capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
  return typeof tasks?.requests?.tools?.call === 'object' && tasks.requests.tools.call !== null;
}

/** Why a tasks/* method cannot be sent to this session, or undefined if it can. */
export function tasksMethodRefusal(session: Session, method: string): string | undefined {
  if (session.era !== 'legacy')
    return `${method} is the 2025-11-25 tasks utility; this server speaks the modern era, whose tasks extension has no ${method}`;
  const tasks = session.serverCapabilities.tasks as Record<string, unknown> | undefined;
  if (typeof tasks !== 'object' || tasks === null)
    return `the server does not declare the tasks capability needed by ${method}`;
  if (method === 'tasks/list' && typeof tasks.list !== 'object')
    return 'the server does not declare tasks.list, needed by tasks/list';
  if (method === 'tasks/cancel' && typeof tasks.cancel !== 'object')
    return 'the server does not declare tasks.cancel, needed by tasks/cancel';
  return undefined;
}

export function taskCapabilityError(method: string, why: string, server: string): CapabilityError {
  return new CapabilityError(method, why, { server });
}
