import { inspect } from 'node:util';
import { ConfigError } from './errors.js';

/** What a Secret holds: the value, or a function that returns it (called when the value is used). */
export type SecretSource = string | (() => string | Promise<string>);

// The value lives outside the object, so no inspection (showHidden, getters, structuredClone) can reach it.
const sources = new WeakMap<Secret, SecretSource>();

const REDACTED = '[Secret]';

/**
 * A value that is redacted everywhere (`String()`, template literals, `JSON.stringify`,
 * `util.inspect`, `console.log`, errors) until a server process is spawned with it.
 * A function source is called again on every spawn, so a rotated credential is picked up.
 */
export class Secret {
  /**
   * @param value The value, or a function (sync or async) that returns it when a transport
   * starts; a function that throws or returns no string fails that start with a ConfigError.
   * @throws `TypeError` when `value` is neither a string nor a function.
   */
  constructor(value: SecretSource) {
    if (typeof value !== 'string' && typeof value !== 'function') {
      throw new TypeError(`Secret takes a string or a function returning one, got ${typeof value}`);
    }
    sources.set(this, value);
    Object.freeze(this);
  }

  /** Always `'[Secret]'`. */
  toString(): string {
    return REDACTED;
  }

  /** Always `'[Secret]'`, so `JSON.stringify` never shows the value. */
  toJSON(): string {
    return REDACTED;
  }

  /** Always `'[Secret]'`, for template literals and concatenation. */
  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  /** Always `'[Secret]'`, for `util.inspect` and `console.log`. */
  [inspect.custom](): string {
    return REDACTED;
  }
}

/** True for a Secret of this library. */
export function isSecret(value: unknown): value is Secret {
  return value instanceof Secret;
}

/**
 * The plain value, for the one place that needs it: building a child process environment.
 * Not exported from the package.
 */
export async function exposeSecret(secret: Secret): Promise<string> {
  const source = sources.get(secret);
  if (source === undefined) throw new TypeError('not a Secret of conduit-mcp');
  const value = typeof source === 'function' ? await source() : source;
  if (typeof value !== 'string') {
    throw new TypeError(`a Secret's function must return a string, it returned ${typeof value}`);
  }
  return value;
}

/**
 * The value of the Secret given as option `key` (e.g. `transport.env.TOKEN`) of `server`, as a
 * transport starts. A function that throws, or returns no string, fails the same way on every
 * transport: a ConfigError naming the server and the option (permanent: starting again would call
 * the same function; never a network or spawn failure). Not exported from the package.
 */
export async function revealOption(secret: Secret, key: string, server: string | undefined): Promise<string> {
  try {
    return await exposeSecret(secret);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      key,
      `the Secret given as ${key} could not be read (${why}); nothing was sent to the server: fix the Secret's function`,
      { server, cause: error },
    );
  }
}
