import { UsageError } from '../errors.js';
import { describe, durationMessage, isDuration } from '../validate.js';
import type { RequestOptions } from './connection.js';

const REQUEST_OPTION_KEYS = ['signal', 'timeout', 'onProgress', 'resetTimeoutOnProgress', 'maxTotalTimeout'];

/** The options of a call given none: one frozen object, not a new one per request. */
const NO_OPTIONS: RequestOptions = Object.freeze({});

const isAbortSignal = (value: unknown): value is AbortSignal =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AbortSignal).aborted === 'boolean' &&
  typeof (value as AbortSignal).addEventListener === 'function';

/**
 * Checks a call's RequestOptions the way options are checked at construction, and returns a
 * copy with only the known keys (nothing else, an `id` say, can reach the connection). Throws
 * UsageError naming the key; durations follow the same rule as every other duration.
 */
export function normalizeRequestOptions(raw: unknown, server: string, method: string): RequestOptions {
  if (raw === undefined) return NO_OPTIONS;
  const fail = (_key: string, text: string) => new UsageError(`${method}: ${text}`, { server });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw fail('options', `the request options must be an object, got ${describe(raw)}`);
  }
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!REQUEST_OPTION_KEYS.includes(key)) {
      throw fail(
        key,
        `options.${key} is not a request option; the options are ${REQUEST_OPTION_KEYS.join(', ')}`,
      );
    }
  }
  const { signal, timeout, onProgress, resetTimeoutOnProgress, maxTotalTimeout } = input;
  for (const [key, value] of [
    ['timeout', timeout],
    ['maxTotalTimeout', maxTotalTimeout],
  ] as const) {
    if (value !== undefined && !isDuration(value, 1))
      throw fail(key, durationMessage(value, `options.${key}`, 1));
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw fail('signal', `options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw fail('onProgress', `options.onProgress must be a function, got ${describe(onProgress)}`);
  }
  if (resetTimeoutOnProgress !== undefined && typeof resetTimeoutOnProgress !== 'boolean') {
    throw fail(
      'resetTimeoutOnProgress',
      `options.resetTimeoutOnProgress must be true or false, got ${describe(resetTimeoutOnProgress)}`,
    );
  }
  const options: RequestOptions = {};
  if (signal !== undefined) options.signal = signal as AbortSignal;
  if (timeout !== undefined) options.timeout = timeout as number;
  if (onProgress !== undefined) options.onProgress = onProgress as RequestOptions['onProgress'];
  if (resetTimeoutOnProgress !== undefined)
    options.resetTimeoutOnProgress = resetTimeoutOnProgress as boolean;
  if (maxTotalTimeout !== undefined) options.maxTotalTimeout = maxTotalTimeout as number;
  return options;
}
