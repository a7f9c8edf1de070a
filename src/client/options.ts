import { createRequire } from 'node:module';
import { ConfigError } from '../errors.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../protocol/meta.js';
import { defaultSchemaValidator, type SchemaValidator } from '../protocol/schema-validation.js';
import type { ClientHandlers, Implementation } from '../protocol/types.js';
import type { ProtocolMode } from '../protocol/versions.js';
import { resolveTelemetry, type TelemetryOption } from '../telemetry/options.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { resolveTransportSpec, type TransportSpec } from '../transport/kinds.js';
import type { ResolvedTransportSpec } from '../transport/transport.js';
import {
  at,
  booleanOption,
  describe,
  durationOption,
  integerOption,
  numberInRange,
  ownProperties,
  rejectUnknownKeys,
  stringOption,
} from '../validate.js';
import { DEFAULT_RECONNECT, type ReconnectPolicy } from './backoff.js';
import { ELICITATION_MODES, type ElicitationMode } from './eras/elicitation.js';
import { normalizeRoots, type Root } from './roots.js';

export type { TransportSpec };

/** The options of `new Client(options)`; only `name` and `transport` are required. */
export interface ClientOptions {
  /** A label for events, errors and logs. */
  readonly name: string;
  /** How to run the server. */
  readonly transport: TransportSpec;
  /** Sent as clientInfo in both eras. @defaultValue { name: 'conduit-mcp', version: <package version> } */
  readonly clientInfo?: Implementation;
  /** `'auto'` probes with server/discover; `'modern'`/`'legacy'` skip the probe. @defaultValue 'auto' */
  readonly protocol?: ProtocolMode;
  /** How long to wait for the probe, ms. @defaultValue the transport kind's: 3000 (stdio) */
  readonly probeTimeout?: number;
  /** Default per-request timeout, ms. @defaultValue 60000 */
  readonly requestTimeout?: number;
  /**
   * Time one connection attempt may take as a whole (spawn, Secret resolution, probe and
   * handshake), ms; an attempt past it fails like any other and is retried under `reconnect`.
   * @defaultValue 60000
   */
  readonly connectTimeout?: number;
  /** Restart policy after the server exits or the transport closes. */
  readonly reconnect?: Partial<ReconnectPolicy>;
  /** The server log level wanted; messages arrive as `'log'` events. @defaultValue none */
  readonly logLevel?: LogLevel;
  /** Answer the server's input requests (elicitation, sampling, roots); each declares its capability. */
  readonly handlers?: ClientHandlers;
  /** Serve modern list and read results from a cache while their `ttlMs` says they are fresh. @defaultValue true */
  readonly cache?: boolean;
  /** Elicitation modes handlers.elicitation supports (declared as capabilities). @defaultValue ['form'] */
  readonly elicitationModes?: readonly ElicitationMode[];
  /** Declare sampling.tools: handlers.sampling may get `tools`/`toolChoice`. @defaultValue false */
  readonly samplingTools?: boolean;
  /** Checks structuredContent and elicitation answers against their schemas. @defaultValue @cfworker/json-schema, cached */
  readonly validateSchema?: SchemaValidator;
  /**
   * The roots offered to the server (`file://` URIs), answered to `roots/list`; declares `roots`
   * with `listChanged`, and `setRoots()` changes them. Not with `handlers.roots`. @defaultValue none
   */
  readonly roots?: readonly Root[];
  /**
   * Legacy era: send `ping` this often (ms) while connected; a ping unanswered within the interval
   * closes the connection with `ping_timeout` (and the client reconnects). @defaultValue none (off)
   */
  readonly pingInterval?: number;
  /**
   * OpenTelemetry: every request a CLIENT span named and attributed by the MCP semantic
   * conventions, its context sent in `params._meta` (`traceparent`...); connects and restarts
   * spans too. `true` uses the global TracerProvider; needs `@opentelemetry/api` installed (loaded
   * at connect). See docs/telemetry.md. @defaultValue false
   */
  readonly telemetry?: TelemetryOption;
}

export interface ResolvedClientOptions {
  readonly name: string;
  readonly transport: ResolvedTransportSpec;
  readonly clientInfo: Implementation;
  readonly protocol: ProtocolMode;
  readonly probeTimeout: number;
  readonly requestTimeout: number;
  readonly connectTimeout: number;
  readonly reconnect: ReconnectPolicy;
  readonly logLevel: LogLevel | undefined;
  readonly handlers: ClientHandlers;
  readonly cache: boolean;
  readonly elicitationModes: readonly ElicitationMode[];
  readonly samplingTools: boolean;
  readonly validateSchema: SchemaValidator;
  readonly roots: readonly Root[] | undefined;
  readonly pingInterval: number | undefined;
  readonly telemetry: Telemetry | undefined;
}

const CLIENT_KEYS = [
  'name',
  'transport',
  'clientInfo',
  'protocol',
  'probeTimeout',
  'requestTimeout',
  'connectTimeout',
  'reconnect',
  'logLevel',
  'handlers',
  'cache',
  'elicitationModes',
  'samplingTools',
  'validateSchema',
  'roots',
  'pingInterval',
  'telemetry',
] as const;
const RECONNECT_KEYS = [
  'maxReconnects',
  'initialDelay',
  'maxDelay',
  'factor',
  'jitter',
  'resetAfter',
] as const;
const HANDLER_KEYS = ['elicitation', 'sampling', 'roots'] as const;

export const DEFAULT_REQUEST_TIMEOUT = 60_000;
export const DEFAULT_CONNECT_TIMEOUT = 60_000;

const packageVersion: string = (createRequire(import.meta.url)('../../package.json') as { version: string })
  .version;

/** Our default clientInfo. */
export const DEFAULT_CLIENT_INFO: Implementation = { name: 'conduit-mcp', version: packageVersion };

// What an option left out resolves to, made once (valid by construction, frozen as they are shared):
// a Client made with few options checks only the ones it was given.
const NO_RECONNECT_OPTIONS: ReconnectPolicy = Object.freeze({ ...DEFAULT_RECONNECT });
const NO_HANDLERS: ClientHandlers = Object.freeze({});
const FORM_ONLY: readonly ElicitationMode[] = Object.freeze(['form']);

/** Validates ClientOptions in one pass; every problem throws ConfigError naming the key. */
export function resolveClientOptions(raw: unknown): ResolvedClientOptions {
  const input = ownProperties(raw, 'options');
  rejectUnknownKeys(input, CLIENT_KEYS, '');
  const name = stringOption(input.name, 'name');
  // Resolved once, here: every (re)start creates its transport from this, validating nothing again.
  const transport = resolveTransportSpec(ownProperties(input.transport, 'transport'), {
    name,
    keyPrefix: 'transport',
  });
  return {
    name,
    transport,
    clientInfo: normalizeClientInfo(input.clientInfo),
    // An option left out (or null) is its default as it is, valid by construction: only given ones are checked.
    protocol: input.protocol == null ? 'auto' : normalizeProtocol(input.protocol),
    probeTimeout:
      input.probeTimeout == null
        ? transport.discovery.probeTimeout
        : durationOption(input.probeTimeout, 'probeTimeout'),
    requestTimeout:
      input.requestTimeout == null
        ? DEFAULT_REQUEST_TIMEOUT
        : durationOption(input.requestTimeout, 'requestTimeout', 1),
    connectTimeout:
      input.connectTimeout == null
        ? DEFAULT_CONNECT_TIMEOUT
        : durationOption(input.connectTimeout, 'connectTimeout', 1),
    reconnect: input.reconnect == null ? NO_RECONNECT_OPTIONS : normalizeReconnect(input.reconnect),
    logLevel: input.logLevel === undefined ? undefined : normalizeLogLevel(input.logLevel, 'logLevel'),
    handlers: input.handlers == null ? NO_HANDLERS : normalizeHandlers(input.handlers),
    cache: input.cache == null || booleanOption(input.cache, 'cache'),
    elicitationModes:
      input.elicitationModes == null ? FORM_ONLY : normalizeElicitationModes(input.elicitationModes),
    samplingTools: input.samplingTools != null && booleanOption(input.samplingTools, 'samplingTools'),
    validateSchema: normalizeValidator(input.validateSchema),
    roots: input.roots === undefined ? undefined : normalizeRootsOption(input.roots, input.handlers),
    pingInterval:
      input.pingInterval === undefined ? undefined : durationOption(input.pingInterval, 'pingInterval', 1),
    telemetry:
      input.telemetry == null
        ? undefined
        : resolveTelemetry(input.telemetry, {
            key: 'telemetry',
            server: name,
            transport: input.transport,
            version: packageVersion,
          }),
  };
}

function normalizeRootsOption(value: unknown, handlers: unknown): readonly Root[] {
  if ((handlers as ClientHandlers | undefined)?.roots !== undefined) {
    throw new ConfigError(
      'roots',
      'give either roots (a list the client keeps, changed with setRoots) or handlers.roots (your own answer), not both',
    );
  }
  const roots = normalizeRoots(value);
  if (Array.isArray(roots)) return roots;
  throw new ConfigError(roots.index === undefined ? 'roots' : `roots[${roots.index}]`, roots.problem);
}

function normalizeClientInfo(value: unknown): Implementation {
  if (value === undefined) return DEFAULT_CLIENT_INFO;
  const info = ownProperties(value, 'clientInfo');
  stringOption(info.name, 'clientInfo.name');
  stringOption(info.version, 'clientInfo.version');
  return { ...info } as Implementation;
}

function normalizeProtocol(value: unknown): ProtocolMode {
  if (value === 'auto' || value === 'modern' || value === 'legacy') return value;
  throw new ConfigError('protocol', `protocol must be 'auto', 'modern' or 'legacy', got ${describe(value)}`);
}

function normalizeLogLevel(value: unknown, key: string): LogLevel {
  if (isLogLevel(value)) return value;
  throw new ConfigError(key, `${key} must be one of ${LOG_LEVELS.join(', ')}, got ${describe(value)}`);
}

function normalizeReconnect(value: unknown): ReconnectPolicy {
  const input = ownProperties(value, 'reconnect');
  rejectUnknownKeys(input, RECONNECT_KEYS, 'reconnect');
  const key = (name: string) => at('reconnect', name);
  const policy: ReconnectPolicy = {
    maxReconnects: integerOption(
      input.maxReconnects ?? DEFAULT_RECONNECT.maxReconnects,
      key('maxReconnects'),
      'attempts',
    ),
    initialDelay: durationOption(input.initialDelay ?? DEFAULT_RECONNECT.initialDelay, key('initialDelay')),
    maxDelay: durationOption(input.maxDelay ?? DEFAULT_RECONNECT.maxDelay, key('maxDelay')),
    factor: numberInRange(input.factor ?? DEFAULT_RECONNECT.factor, key('factor'), 1, 100),
    jitter: numberInRange(input.jitter ?? DEFAULT_RECONNECT.jitter, key('jitter'), 0, 1),
    resetAfter: durationOption(input.resetAfter ?? DEFAULT_RECONNECT.resetAfter, key('resetAfter')),
  };
  if (policy.maxDelay < policy.initialDelay) {
    throw new ConfigError(
      key('maxDelay'),
      `reconnect.maxDelay (${policy.maxDelay} ms) must not be less than reconnect.initialDelay (${policy.initialDelay} ms)`,
    );
  }
  return policy;
}

function normalizeHandlers(value: unknown): ClientHandlers {
  const input = ownProperties(value, 'handlers');
  rejectUnknownKeys(input, HANDLER_KEYS, 'handlers');
  for (const name of HANDLER_KEYS) {
    if (input[name] !== undefined && typeof input[name] !== 'function') {
      throw new ConfigError(
        `handlers.${name}`,
        `handlers.${name} must be an async function, got ${describe(input[name])}`,
      );
    }
  }
  return { ...input } as ClientHandlers;
}

/** The default, one frozen array shared by every Client. */

function normalizeElicitationModes(value: unknown): readonly ElicitationMode[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((mode) => (ELICITATION_MODES as readonly unknown[]).includes(mode))
  ) {
    throw new ConfigError(
      'elicitationModes',
      `elicitationModes must be a non-empty array of 'form' and 'url', got ${describe(value)}`,
    );
  }
  return [...new Set(value as ElicitationMode[])];
}

function normalizeValidator(value: unknown): SchemaValidator {
  if (value === undefined) return defaultSchemaValidator;
  if (typeof value !== 'function') {
    throw new ConfigError(
      'validateSchema',
      `validateSchema must be a function (schema, value) => SchemaCheck, got ${describe(value)}`,
    );
  }
  return value as SchemaValidator;
}
