import { MAX_TIMER_MS } from '../validate.js';

/** When and how often the supervisor restarts a server. Durations in milliseconds. */
export interface ReconnectPolicy {
  /** Consecutive failed attempts before giving up. @defaultValue 5 */
  maxReconnects: number;
  /** Delay before the first attempt. @defaultValue 250 */
  initialDelay: number;
  /** Ceiling of the delay. @defaultValue 30000 */
  maxDelay: number;
  /** Growth per attempt. @defaultValue 2 */
  factor: number;
  /** Random spread, 0 to 1: the delay is multiplied by a factor in [1 - jitter, 1 + jitter]. @defaultValue 0.2 */
  jitter: number;
  /** A connection ready for this long counts as healthy and resets the attempt count. @defaultValue 5000 */
  resetAfter: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = {
  maxReconnects: 5,
  initialDelay: 250,
  maxDelay: 30_000,
  factor: 2,
  jitter: 0.2,
  resetAfter: 5000,
};

/** The delay before attempt `attempt` (1-based): exponential, capped, with jitter; never past a timer's limit. */
export function reconnectDelay(
  attempt: number,
  policy: ReconnectPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.initialDelay * policy.factor ** Math.max(0, attempt - 1), policy.maxDelay);
  const delay = Math.round(base * (1 - policy.jitter + 2 * policy.jitter * random()));
  return Math.min(MAX_TIMER_MS, Math.max(0, delay));
}
