// The tasks extension's (SEP-2663) shapes on the wire: what marks a task handle, whether a server
// declares the extension, and a task read from a CreateTaskResult or a tasks/get result.
import { ProtocolError } from '../errors.js';
import { TASKS_EXTENSION } from '../protocol/extensions.js';
import type { Session } from './eras/session.js';
import { readTask, type Task } from './tasks.js';

/** The wait between two polls when the server suggests none, ms. */
export const DEFAULT_POLL_INTERVAL = 1000;
/** The shortest wait between two polls, whatever the server suggests (0 included), ms. */
export const MIN_POLL_INTERVAL = 10;

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** True when a `tools/call` result is a task handle of the tasks extension (`resultType: 'task'`). */
export function isTaskHandle(result: unknown): boolean {
  return (result as { resultType?: unknown } | null)?.resultType === 'task';
}

/** Whether the server declares the tasks extension (SEP-2663). */
export function declaresTasks(session: Session): boolean {
  return session.serverCapabilities.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * A task of the extension (a CreateTaskResult or a tasks/get result), checked, without the
 * result's `resultType` and `_meta`, and with the names of the legacy Task filled in from the
 * extension's: `ttl` from `ttlMs`, `pollInterval` from `pollIntervalMs`.
 */
export function readModernTask(value: unknown, server: string, what: string): Task {
  const task = readTask(value, server, what);
  if (!STATUSES.has(task.status))
    throw new ProtocolError(`${what} carried an unknown task status ${JSON.stringify(task.status)}`, {
      server,
    });
  const { resultType: _resultType, _meta, ...fields } = task;
  const ttl = typeof fields.ttlMs === 'number' ? fields.ttlMs : null;
  if (typeof fields.pollIntervalMs !== 'number') return { ...fields, ttl };
  return { ...fields, ttl, pollInterval: fields.pollIntervalMs };
}
