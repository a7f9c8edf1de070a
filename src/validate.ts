import { ConfigError } from './errors.js';
import { isSecret } from './secret.js';

/** Prints a value for an error message: short, and never a Secret's content. */
export function describe(value: unknown): string {
  if (isSecret(value)) return '[Secret]';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${value.length} items)`;
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`;
    case 'function':
      return 'a function';
    default:
      return 'an object';
  }
}

/** Joins a key path: `at('transport', 'cwd')` is `transport.cwd`, `at('', 'cwd')` is `cwd`. */
export function at(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

/** An object literal (or null-prototype object): not an array, a Map or any other class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A copy of a plain object's own properties that inherits nothing; throws for anything else. */
export function ownProperties(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(key || 'options', `${key || 'options'} must be an object, got ${describe(value)}`);
  }
  // No prototype: no Object.prototype key, polluted or not, reads as an option.
  return Object.assign(Object.create(null) as Record<string, unknown>, value);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Throws for the first key that is not an option, suggesting the closest one. */
export function rejectUnknownKeys(
  input: Record<string, unknown>,
  known: readonly string[],
  prefix: string,
  aliases: Readonly<Record<string, string>> = {},
): void {
  for (const key of Object.keys(input)) {
    if (known.includes(key)) continue;
    const suggestion =
      aliases[key] ?? known.find((name) => editDistance(name.toLowerCase(), key.toLowerCase()) <= 2);
    const hint = suggestion
      ? `; did you mean ${at(prefix, suggestion)}?`
      : `; the options are ${known.join(', ')}`;
    throw new ConfigError(at(prefix, key), `${at(prefix, key)} is not an option${hint}`);
  }
}

/** A whole number >= `min` (0 by default), with its unit in the message. */
export function integerOption(value: unknown, key: string, unit: string, min = 0): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
  const kind = min === 0 ? 'a non-negative integer' : `an integer >= ${min}`;
  throw new ConfigError(key, `${key} must be ${kind} (${unit}), got ${describe(value)}`);
}

/** A number in [min, max]. */
export function numberInRange(value: unknown, key: string, min: number, max: number): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) return value;
  throw new ConfigError(key, `${key} must be a number from ${min} to ${max}, got ${describe(value)}`);
}

export function booleanOption(value: unknown, key: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new ConfigError(key, `${key} must be true or false, got ${describe(value)}`);
}

export function stringOption(value: unknown, key: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw new ConfigError(key, `${key} must be a non-empty string, got ${describe(value)}`);
}

/** The longest delay a Node timer holds (about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** True for a duration every timer of ours can hold: a whole number of ms in [min, MAX_TIMER_MS]. */
export function isDuration(value: unknown, min = 0): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_TIMER_MS;
}

/** The sentence for a duration that is not one, shared by ConfigError and UsageError. */
export function durationMessage(value: unknown, key: string, min = 0): string {
  return `${key} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS} (a Node timer's limit), got ${describe(value)}`;
}

/** Every duration option goes through this one rule (client, reconnect and transport options). */
export function durationOption(value: unknown, key: string, min = 0): number {
  if (isDuration(value, min)) return value;
  throw new ConfigError(key, durationMessage(value, key, min));
}
