import { ConfigError } from '../errors.js';
import { at, booleanOption, describe, ownProperties, rejectUnknownKeys } from '../validate.js';
import { endpointOf, networkAttributes } from './attributes.js';
import { Telemetry } from './telemetry.js';

/**
 * A TracerProvider of OpenTelemetry (`@opentelemetry/api`'s `TracerProvider`): the SDK's
 * `NodeTracerProvider`, `BasicTracerProvider`, or the global one.
 */
export interface TelemetryTracerProvider {
  /** Returns the tracer the client's spans are made with. */
  getTracer(name: string, version?: string): unknown;
}

/** What `telemetry: { ... }` may set; `telemetry: true` is `{}`. */
export interface TelemetrySettings {
  /**
   * Where the spans go. @defaultValue the global TracerProvider (`trace.getTracerProvider()` of
   * `@opentelemetry/api`, the one `provider.register()` or the NodeSDK sets)
   */
  readonly tracerProvider?: TelemetryTracerProvider;
  /**
   * Record a `tools/call`'s arguments on its span as `gen_ai.tool.call.arguments` (JSON). They
   * may hold personal or secret data: off unless you ask. @defaultValue false
   */
  readonly recordArguments?: boolean;
  /**
   * Record a `tools/call`'s result on its span as `gen_ai.tool.call.result` (JSON). Off unless
   * you ask, for the same reason. @defaultValue false
   */
  readonly recordResults?: boolean;
}

/**
 * The `telemetry` option: `true` (the global TracerProvider), settings, or `false`/left out (off:
 * `@opentelemetry/api` is never loaded and nothing is added to the requests).
 */
export type TelemetryOption = boolean | TelemetrySettings;

const SETTINGS_KEYS = ['tracerProvider', 'recordArguments', 'recordResults'] as const;

/** The checked option: a Telemetry for this client, or undefined when it is off. */
export function resolveTelemetry(
  value: unknown,
  context: { key: string; server: string; transport: unknown; version: string },
): Telemetry | undefined {
  const { key } = context;
  if (value === undefined || value === null || value === false) return undefined;
  const base = {
    key,
    server: context.server,
    network: networkAttributes(context.transport),
    endpoint: endpointOf(context.transport),
    version: context.version,
  };
  if (value === true) return new Telemetry({ ...base, recordArguments: false, recordResults: false });
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      key,
      `${key} must be true, false or { tracerProvider?, recordArguments?, recordResults? }, got ${describe(value)}`,
    );
  }
  const input = ownProperties(value, key);
  rejectUnknownKeys(input, SETTINGS_KEYS, key);
  const provider = input.tracerProvider;
  if (
    provider !== undefined &&
    (typeof provider !== 'object' ||
      provider === null ||
      typeof (provider as TelemetryTracerProvider).getTracer !== 'function')
  ) {
    throw new ConfigError(
      at(key, 'tracerProvider'),
      `${at(key, 'tracerProvider')} must be an OpenTelemetry TracerProvider (an object with getTracer()), got ${describe(provider)}`,
    );
  }
  return new Telemetry({
    ...base,
    provider: provider as TelemetryTracerProvider | undefined,
    recordArguments: booleanOption(input.recordArguments ?? false, at(key, 'recordArguments')),
    recordResults: booleanOption(input.recordResults ?? false, at(key, 'recordResults')),
  });
}
