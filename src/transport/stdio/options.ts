import { statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { isSecret, type Secret } from '../../secret.js';
import {
  at,
  booleanOption,
  describe,
  durationOption,
  integerOption,
  isPlainObject,
  ownProperties,
  rejectUnknownKeys,
} from '../../validate.js';
import { isSpacedExecutablePath } from './executable.js';

/** Where the server's stderr goes. It is never merged into stdout and never captured. */
export type StderrOption =
  | 'inherit'
  | 'discard'
  | {
      /** An absolute path; stderr is appended to the file. */
      readonly file: string;
    };

/** A value of the server's environment: plain, or a {@link Secret} revealed only to the process. */
export type EnvValue = string | Secret;

/** How to launch a local MCP server. Every duration is in milliseconds, every size in bytes. */
export interface StdioOptions {
  /**
   * Executable name (looked up in the child's PATH on every start) or path. Whitespace only in a
   * full path naming an existing executable (`C:\Program Files\nodejs\node.exe`); arguments go in
   * `args`. On Windows, npm's `.cmd` shims (`npx`, a package's bin) run as the node script they start.
   */
  readonly command: string;
  /** Arguments, passed as they are: no shell ever sees them. @defaultValue [] */
  readonly args?: readonly string[];
  /** Extra environment; wins over the inherited allowlist. A value may be a Secret. @defaultValue {} */
  readonly env?: Readonly<Record<string, EnvValue>> | ReadonlyArray<readonly [string, EnvValue]>;
  /** Absolute path of an existing directory. @defaultValue this process's cwd at each start */
  readonly cwd?: string;
  /** `'inherit'`, `'discard'`, or `{ file }` (an absolute path, appended to). @defaultValue 'inherit' */
  readonly stderr?: StderrOption;
  /**
   * Bytes of the server's latest stderr to keep (while it still goes where `stderr` says), attached
   * to the `exit_status` close reason as `stderrTail`, Secrets redacted. 0 keeps none.
   * @defaultValue 0
   */
  readonly stderrTail?: number;
  /**
   * Windows: allow `.bat`/`.cmd` executables other than npm's shims, which never need it (arguments
   * with `"%^&|<>` are still refused). @defaultValue false
   */
  readonly allowBatchFiles?: boolean;
  /** Longest line the server may write; a longer one closes with `message_too_large`. @defaultValue 8388608 */
  readonly maxMessageBytes?: number;
  /** Non-JSON-RPC lines in a row tolerated; one more closes with `junk_output`. @defaultValue 10 */
  readonly maxJunkLines?: number;
  /** Unwritten bytes held before closing with `write_queue_full`. @defaultValue 16777216 */
  readonly maxWriteQueueBytes?: number;
  /** Time to exit after stdin is closed, before SIGTERM. @defaultValue 2000 */
  readonly stdinGrace?: number;
  /** Time to exit after SIGTERM, before SIGKILL. @defaultValue 2000 */
  readonly termGrace?: number;
}

/** Where the server's stderr goes, resolved: this process's stderr, nowhere, or a file. */
export type ResolvedStderr =
  | {
      /** Shown on this process's stderr. */
      kind: 'inherit';
    }
  | {
      /** Dropped. */
      kind: 'discard';
    }
  | {
      /** Appended to a file. */
      kind: 'file';
      /** The file's absolute path. */
      path: string;
    };

/** StdioOptions validated, with every default filled in (a StdioTransport's `options`). */
export interface ResolvedStdioOptions {
  /** The executable, as given (looked up on PATH when it is started). */
  readonly command: string;
  /** Its arguments, passed as they are (no shell). */
  readonly args: readonly string[];
  /** In the order given; a later entry wins over an earlier one of the same name. */
  readonly env: ReadonlyArray<readonly [string, EnvValue]>;
  /** The working directory, or undefined for this process's. */
  readonly cwd: string | undefined;
  /** Where the server's stderr goes. */
  readonly stderr: ResolvedStderr;
  /** How many bytes of stderr's end a close reason keeps (0: none). */
  readonly stderrTail: number;
  /** Windows: whether `.bat`/`.cmd` executables other than npm's shims may be started. */
  readonly allowBatchFiles: boolean;
  /** The longest line (one message) the server may write, in bytes. */
  readonly maxMessageBytes: number;
  /** How many non-JSON-RPC lines in a row are dropped before the transport closes. */
  readonly maxJunkLines: number;
  /** How many bytes may wait to be written to a server that stopped reading. */
  readonly maxWriteQueueBytes: number;
  /** How long a server has to exit after its stdin closes, in ms. */
  readonly stdinGrace: number;
  /** How long after SIGTERM before SIGKILL, in ms. */
  readonly termGrace: number;
}

export const STDIO_DEFAULTS = {
  maxMessageBytes: 8 * 1024 * 1024,
  maxJunkLines: 10,
  maxWriteQueueBytes: 16 * 1024 * 1024,
  stdinGrace: 2000,
  termGrace: 2000,
  stderrTail: 0,
} as const;

/** The largest `stderrTail`: a tail is for a reason in a message, not a log. */
export const MAX_STDERR_TAIL = 1024 * 1024;

const STDIO_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'stderr',
  'stderrTail',
  'allowBatchFiles',
  'maxMessageBytes',
  'maxJunkLines',
  'maxWriteQueueBytes',
  'stdinGrace',
  'termGrace',
] as const;

const ALIASES: Record<string, string> = { cd: 'cwd', arguments: 'args', argv: 'args', environment: 'env' };

/**
 * Validates StdioOptions in one pass, at construction, into a resolved object with every default
 * filled. Each problem throws ConfigError naming the key (`prefix.key`) and the fix. `platform`
 * and `pathExt` (this process's PATHEXT) are what a command with spaces is checked against.
 */
export function resolveStdioOptions(
  raw: unknown,
  prefix: string,
  platform: NodeJS.Platform,
  pathExt: string | undefined,
): ResolvedStdioOptions {
  const input = ownProperties(raw, prefix);
  rejectUnknownKeys(input, STDIO_KEYS, prefix, ALIASES);
  if (input.type !== undefined && input.type !== 'stdio') {
    throw new ConfigError(
      at(prefix, 'type'),
      `${at(prefix, 'type')} must be 'stdio', got ${describe(input.type)}`,
    );
  }
  // Only an absent option (undefined) takes the default: null is a wrong value like any other.
  const given = (name: (typeof STDIO_KEYS)[number], fallback: unknown): unknown =>
    input[name] === undefined ? fallback : input[name];
  const count = (name: 'maxMessageBytes' | 'maxJunkLines' | 'maxWriteQueueBytes', unit: string, min = 0) =>
    integerOption(given(name, STDIO_DEFAULTS[name]), at(prefix, name), unit, min);
  return {
    command: normalizeCommand(input.command, at(prefix, 'command'), platform, pathExt),
    args: normalizeArgs(given('args', []), at(prefix, 'args')),
    env: normalizeEnv(given('env', {}), at(prefix, 'env')),
    cwd: input.cwd === undefined ? undefined : normalizeCwd(input.cwd, at(prefix, 'cwd'), platform),
    stderr: normalizeStderr(given('stderr', 'inherit'), at(prefix, 'stderr'), platform),
    stderrTail: normalizeStderrTail(given('stderrTail', STDIO_DEFAULTS.stderrTail), at(prefix, 'stderrTail')),
    allowBatchFiles: booleanOption(given('allowBatchFiles', false), at(prefix, 'allowBatchFiles')),
    maxMessageBytes: count('maxMessageBytes', 'bytes', 1),
    maxJunkLines: count('maxJunkLines', 'lines'),
    maxWriteQueueBytes: count('maxWriteQueueBytes', 'bytes', 1),
    stdinGrace: durationOption(given('stdinGrace', STDIO_DEFAULTS.stdinGrace), at(prefix, 'stdinGrace')),
    termGrace: durationOption(given('termGrace', STDIO_DEFAULTS.termGrace), at(prefix, 'termGrace')),
  };
}

export function normalizeCommand(
  value: unknown,
  key: string,
  platform: NodeJS.Platform,
  pathExt: string | undefined,
): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(
      key,
      `${key} is required: the executable to run, e.g. 'node' or '/usr/bin/python3', got ${describe(value)}`,
    );
  }
  // C:\Program Files\nodejs\node.exe is one path to an executable, spaces and all.
  if (/\s/.test(value) && !isSpacedExecutablePath(value, platform, pathExt)) {
    if (statSync(value, { throwIfNoEntry: false })?.isFile()) {
      // A real file whose path has a space: splitting it would only give a wrong command.
      throw new ConfigError(
        key,
        `${key} may contain whitespace only as a full path to an executable, and ${describe(value)} is not one: ` +
          `to run that file, run it through its interpreter (e.g. command: 'node', args: [${JSON.stringify(value)}]) ` +
          'or link it from a path without spaces',
      );
    }
    throw new ConfigError(
      key,
      `${key} must be the executable alone, without spaces, got ${describe(value)}: put arguments in args ` +
        `(e.g. command: ${JSON.stringify(value.trim().split(/\s+/)[0])}, args: ${JSON.stringify(value.trim().split(/\s+/).slice(1))}); no shell splits it`,
    );
  }
  if (value.includes('\0')) throw new ConfigError(key, `${key} must not contain a NUL character`);
  return value;
}

export function normalizeArgs(value: unknown, key: string): readonly string[] {
  if (!Array.isArray(value)) {
    throw new ConfigError(key, `${key} must be an array of strings, got ${describe(value)}`);
  }
  value.forEach((arg, index) => {
    if (typeof arg !== 'string') {
      throw new ConfigError(key, `${key}[${index}] must be a string, got ${describe(arg)}`);
    }
    if (arg.includes('\0')) throw new ConfigError(key, `${key}[${index}] must not contain a NUL character`);
  });
  return Object.freeze([...value]);
}

export function normalizeEnv(value: unknown, key: string): ReadonlyArray<readonly [string, EnvValue]> {
  let entries: unknown[];
  if (Array.isArray(value)) {
    entries = value;
  } else if (isPlainObject(value)) {
    // Only a plain object: Object.entries of a Map (or any class instance) would silently be empty.
    entries = Object.entries(value);
  } else {
    throw new ConfigError(
      key,
      `${key} must be an object or an array of [name, value] pairs, got ${describe(value)}`,
    );
  }
  return Object.freeze(
    entries.map((entry, index) => {
      if (!Array.isArray(entry) || entry.length !== 2) {
        throw new ConfigError(key, `${key}[${index}] must be a [name, value] pair, got ${describe(entry)}`);
      }
      const [name, envValue] = entry as [unknown, unknown];
      if (typeof name !== 'string' || name.length === 0 || name.includes('=') || name.includes('\0')) {
        throw new ConfigError(
          key,
          `${key} has an invalid variable name ${describe(name)}: it must be a non-empty string without '=' or NUL`,
        );
      }
      if (typeof envValue === 'string') {
        if (envValue.includes('\0'))
          throw new ConfigError(key, `${key}.${name} must not contain a NUL character`);
      } else if (!isSecret(envValue)) {
        throw new ConfigError(key, `${key}.${name} must be a string or a Secret, got ${describe(envValue)}`);
      }
      return Object.freeze([name, envValue] as const);
    }),
  );
}

function pathApi(platform: NodeJS.Platform) {
  return platform === 'win32' ? path.win32 : path.posix;
}

export function normalizeCwd(value: unknown, key: string, platform: NodeJS.Platform): string {
  if (typeof value !== 'string' || !pathApi(platform).isAbsolute(value)) {
    throw new ConfigError(
      key,
      `${key} must be an absolute path to an existing directory, got ${describe(value)}`,
    );
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(value).isDirectory();
  } catch {
    throw new ConfigError(
      key,
      `${key} must be an existing directory, but ${describe(value)} does not exist: create it or fix the path`,
    );
  }
  if (!isDirectory) {
    throw new ConfigError(
      key,
      `${key} must be a directory, but ${describe(value)} is not one: give the directory the server runs in`,
    );
  }
  return value;
}

export function normalizeStderr(value: unknown, key: string, platform: NodeJS.Platform): ResolvedStderr {
  if (value === 'inherit') return { kind: 'inherit' };
  if (value === 'discard') return { kind: 'discard' };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const file = (value as { file?: unknown }).file;
    const extra = Object.keys(value).filter((name) => name !== 'file');
    if (extra.length === 0 && typeof file === 'string' && pathApi(platform).isAbsolute(file)) {
      return { kind: 'file', path: file };
    }
    if (typeof file === 'string' && !pathApi(platform).isAbsolute(file)) {
      throw new ConfigError(key, `${key}.file must be an absolute path, got ${describe(file)}`);
    }
  }
  throw new ConfigError(
    key,
    `${key} must be 'inherit', 'discard' or { file: '/absolute/path' }, got ${describe(value)}`,
  );
}

export function normalizeStderrTail(value: unknown, key: string): number {
  const bytes = integerOption(value, key, 'bytes');
  if (bytes > MAX_STDERR_TAIL) {
    throw new ConfigError(key, `${key} must be at most ${MAX_STDERR_TAIL} bytes, got ${bytes}`);
  }
  return bytes;
}
