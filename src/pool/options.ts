import { availableParallelism } from 'node:os';
import type { ClientOptions, TransportSpec } from '../client/options.js';
import { ConfigError } from '../errors.js';
import type { TelemetryOption } from '../telemetry/options.js';
import {
  booleanOption,
  describe,
  durationOption,
  integerOption,
  ownProperties,
  rejectUnknownKeys,
} from '../validate.js';
import { characterTest, DEFAULT_NAME_RULE, type NameRule } from './names.js';

/** A transport spec for a pool server: any the Client takes, or an HTTP URL with headers. */
export type PoolTransportSpec =
  | TransportSpec
  | {
      /** An HTTP server. */
      readonly type: 'http';
      /** Its MCP endpoint. */
      readonly url: string;
      /** Headers sent with every request. */
      readonly headers?: Readonly<Record<string, unknown>>;
    };

/** One server of a pool: a Client's options without `name` (the key is the name), and pool settings. */
export interface PoolServerOptions extends Omit<ClientOptions, 'name' | 'transport'> {
  /** How to run or reach the server. */
  readonly transport: PoolTransportSpec;
  /** Listed in `status()` as `disabled`, never started. @defaultValue false */
  readonly disabled?: boolean;
  /** Start on first use instead of in `connect()`. @defaultValue the pool's `lazy` */
  readonly lazy?: boolean;
  /** ms `connect()` waits for this server. @defaultValue the pool's `startTimeout`, else this server's `connectTimeout`, else 60000 */
  readonly startTimeout?: number;
}

/** The options of `new ClientPool(options)`; only `servers` is required. */
export interface ClientPoolOptions {
  /** The servers by name; the name labels the server's events, errors and pool names. */
  readonly servers: Readonly<Record<string, PoolServerOptions>>;

  /**
   * Servers starting at once: each holds its place until its first message (or its first outcome).
   * @defaultValue the CPU count (os.availableParallelism()) times 4
   */
  readonly concurrency?: number;
  /**
   * ms `connect()` waits for one server before reporting it `failed` with a StartTimeoutError (it
   * goes on trying under its reconnect policy). @defaultValue each server's `connectTimeout`
   * (60000 when it sets none, the Client's default)
   */
  readonly startTimeout?: number;
  /** Start every server on first use. @defaultValue false */
  readonly lazy?: boolean;
  /** Joins a server and a tool or prompt name. @defaultValue (server, tool) => `${server}__${tool}` */
  readonly toolName?: (server: string, tool: string) => string;
  /** One allowed character of a pool name; any other becomes `_`. @defaultValue /[a-zA-Z0-9_-]/ */
  readonly toolNameCharacters?: RegExp;
  /** Longest pool name; longer ones end in `_` and an 8-hex hash of server and name. @defaultValue 64 */
  readonly maxToolNameLength?: number;
  /** While a server is down: `'list'` its last known tools with `available: false`, or `'drop'` them. @defaultValue 'list' */
  readonly unavailableTools?: 'list' | 'drop';
  /** OpenTelemetry for every server that sets no `telemetry` of its own (see ClientOptions.telemetry). @defaultValue false */
  readonly telemetry?: TelemetryOption;
}

export interface ResolvedPoolOptions {
  readonly concurrency: number;
  /** Undefined when not given: each server then waits its own `connectTimeout`. */
  readonly startTimeout: number | undefined;
  readonly lazy: boolean;
  readonly names: NameRule;
  readonly dropUnavailable: boolean;
  /** Given to each server without its own, which checks it. */
  readonly telemetry: unknown;
}

const POOL_KEYS = [
  'servers',
  'concurrency',
  'startTimeout',
  'lazy',
  'toolName',
  'toolNameCharacters',
  'maxToolNameLength',
  'unavailableTools',
  'telemetry',
] as const;

const DEFAULT_START_TIMEOUT = 60_000;

/** Checks the pool's own options (each server's Client options are the Client's to check). */
export function resolvePoolOptions(raw: unknown): ResolvedPoolOptions {
  const input = ownProperties(raw, 'options');
  rejectUnknownKeys(input, POOL_KEYS, '');
  ownProperties(input.servers, 'servers');
  const join = input.toolName ?? DEFAULT_NAME_RULE.join;
  if (typeof join !== 'function') {
    throw new ConfigError(
      'toolName',
      `toolName must be a function (server, tool) => string, got ${describe(join)}`,
    );
  }
  const characters = input.toolNameCharacters ?? DEFAULT_NAME_RULE.characters;
  if (!(characters instanceof RegExp) || !characters.test('_')) {
    throw new ConfigError(
      'toolNameCharacters',
      `toolNameCharacters must be a RegExp matching one allowed character, "_" among them (it replaces the others), got ${describe(characters)}`,
    );
  }
  const unavailable = input.unavailableTools ?? 'list';
  if (unavailable !== 'list' && unavailable !== 'drop') {
    throw new ConfigError(
      'unavailableTools',
      `unavailableTools must be 'list' or 'drop', got ${describe(unavailable)}`,
    );
  }
  return {
    concurrency: integerOption(input.concurrency ?? availableParallelism() * 4, 'concurrency', 'servers', 1),
    startTimeout:
      input.startTimeout === undefined ? undefined : durationOption(input.startTimeout, 'startTimeout', 1),
    lazy: booleanOption(input.lazy ?? false, 'lazy'),
    names: {
      join: join as NameRule['join'],
      characters: characterTest(characters),
      maxLength: integerOption(
        input.maxToolNameLength ?? DEFAULT_NAME_RULE.maxLength,
        'maxToolNameLength',
        'characters',
        16,
      ),
    },
    dropUnavailable: unavailable === 'drop',
    telemetry: input.telemetry,
  };
}

/** The pool's startTimeout if given, else the server's connectTimeout if it is a number, else 60000. */
export function defaultStartTimeout(pool: ResolvedPoolOptions, connectTimeout: unknown): number {
  if (pool.startTimeout !== undefined) return pool.startTimeout;
  return typeof connectTimeout === 'number' ? connectTimeout : DEFAULT_START_TIMEOUT;
}

/** Splits a server's options into the Client's and the pool's. */
export function splitServerOptions(
  name: string,
  raw: unknown,
  pool: ResolvedPoolOptions,
): { client: ClientOptions; disabled: boolean; lazy: boolean; startTimeout: number } {
  const prefix = `servers.${name}`;
  const { disabled, lazy, startTimeout, ...client } = ownProperties(raw, prefix);
  return {
    client: {
      ...client,
      name,
      ...(client.telemetry === undefined && pool.telemetry !== undefined && { telemetry: pool.telemetry }),
    } as unknown as ClientOptions,
    disabled: booleanOption(disabled ?? false, `${prefix}.disabled`),
    lazy: booleanOption(lazy ?? pool.lazy, `${prefix}.lazy`),
    startTimeout: durationOption(
      startTimeout ?? defaultStartTimeout(pool, client.connectTimeout),
      `${prefix}.startTimeout`,
      1,
    ),
  };
}
