import { availableParallelism } from 'node:os';
import path from 'node:path';
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
  /**
   * The file (an absolute path) where the pool keeps each server's last tools list, so that
   * `searchTools` finds the tools of lazy servers not started yet (from an earlier run), and a call
   * starts only the server that has the tool; `false`: none.
   * @defaultValue none for `new ClientPool`; for `fromConfigFile`, one file per config file under
   * the conduit-mcp directory (`~/.config/conduit-mcp/pools/`, see {@link conduitDirectory})
   */
  readonly manifest?: string | false;
  /**
   * Trust on first use: each tool's fingerprint is pinned when first listed; a tool that changes
   * later (a restart, `notifications/tools/list_changed`) is reported (`toolsChanged`) and, by
   * `policy`, kept usable with a warning (`'warn'`), refused until the pins are reset (`'block'`),
   * or refused until `approveTool` (`'reapprove'`). `file`: where pins are kept (an absolute path).
   * @defaultValue no pinning; `file`: in memory for `new ClientPool`, for `fromConfigFile` one file
   * per config file beside its manifest
   */
  readonly pinning?: {
    /** What happens to a changed tool. */
    readonly policy: 'warn' | 'block' | 'reapprove';
    /** The pins' file (absolute), or false for memory only. */
    readonly file?: string | false;
  };
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
  readonly manifest: string | undefined;
  readonly pinning:
    | { readonly policy: 'warn' | 'block' | 'reapprove'; readonly file: string | undefined }
    | undefined;
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
  'manifest',
  'pinning',
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
  const manifest = input.manifest ?? false;
  if (manifest !== false && (typeof manifest !== 'string' || !path.isAbsolute(manifest))) {
    throw new ConfigError(
      'manifest',
      `manifest must be an absolute file path, or false for none, got ${describe(manifest)}`,
    );
  }
  return {
    manifest: manifest === false ? undefined : manifest,
    pinning: input.pinning === undefined ? undefined : resolvePinning(input.pinning),
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

function resolvePinning(raw: unknown): ResolvedPoolOptions['pinning'] {
  const input = ownProperties(raw, 'pinning');
  rejectUnknownKeys(input, ['policy', 'file'], 'pinning');
  const { policy, file = false } = input;
  if (policy !== 'warn' && policy !== 'block' && policy !== 'reapprove') {
    throw new ConfigError(
      'pinning.policy',
      `pinning.policy must be 'warn', 'block' or 'reapprove', got ${describe(policy)}`,
    );
  }
  if (file !== false && (typeof file !== 'string' || !path.isAbsolute(file))) {
    throw new ConfigError(
      'pinning.file',
      `pinning.file must be an absolute file path, or false, got ${describe(file)}`,
    );
  }
  return { policy, file: file === false ? undefined : file };
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
