import { McpError, ProtocolError, UnsupportedProtocolVersionError } from '../../errors.js';
import { UNSUPPORTED_PROTOCOL_VERSION } from '../../jsonrpc/error-codes.js';
import {
  bestCommonVersion,
  LATEST_MODERN_VERSION,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  type ProtocolMode,
} from '../../protocol/versions.js';
import type { DiscoveryRules } from '../../transport/transport.js';
import type { Connection } from '../connection.js';
import { eraStep } from './era-step.js';
import { initializeParams, LegacySession, readInitializeResult } from './legacy.js';
import { ModernSession, modernMeta, readDiscoverResult } from './modern.js';
import { classifyProbe, type ProbeOutcome } from './probe-outcome.js';
import type { EraMemory, Session, SessionContext } from './session.js';

export interface EstablishOptions {
  mode: ProtocolMode;
  /** The transport kind's rules for reading the probe. */
  discovery: DiscoveryRules;
  /** How long the probe waits (ClientOptions.probeTimeout, by default the kind's). */
  probeTimeout: number;
  memory: EraMemory | undefined;
  /** How long `initialize` (and the modern discover) may take. */
  handshakeTimeout: number;
}

/** Goes where the probe's outcome leads: the modern session, a retry, the legacy handshake, or a failure. */
export async function followOutcome(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
  outcome: ProbeOutcome,
  mayRetry: boolean,
): Promise<Session> {
  switch (outcome.kind) {
    case 'modern':
      eraStep(context.name, 'modern', `server/discover answered: modern era, ${outcome.version}`);
      return new ModernSession(connection, context, outcome.version, outcome.discovered);
    case 'retry-modern':
      if (!mayRetry)
        throw new UnsupportedProtocolVersionError([outcome.version], LATEST_MODERN_VERSION, {
          server: context.name,
        });
      eraStep(
        context.name,
        'retry',
        `the server asked for ${outcome.version}: server/discover again with it`,
      );
      return modernByDiscover(connection, context, outcome.version, options);
    case 'legacy':
      eraStep(context.name, 'legacy', `legacy era (${outcome.why}): initialize (${outcome.version})`);
      return legacy(connection, context, outcome.version, options, mayRetry);
    case 'unsupported':
      throw new UnsupportedProtocolVersionError(outcome.supported, outcome.requested, {
        server: context.name,
      });
    case 'fatal':
      throw outcome.error;
  }
}

/** `protocol: 'modern'`, or a retry with a version a -32022 named: discover must succeed. */
export async function modernByDiscover(
  connection: Connection,
  context: SessionContext,
  version: string,
  options: EstablishOptions,
): Promise<Session> {
  let result: unknown;
  try {
    result = await connection.request(
      'server/discover',
      { _meta: modernMeta(context, version) },
      { timeout: options.handshakeTimeout, cancelOnWire: false },
    );
  } catch (error) {
    if (error instanceof McpError) {
      const outcome = classifyProbe({ error }, version);
      if (outcome.kind === 'legacy' && options.mode === 'modern') {
        throw legacyOnly(context, version, `it answered server/discover with error ${error.code}`);
      }
      if (outcome.kind === 'unsupported' || outcome.kind === 'fatal')
        return followOutcome(connection, context, options, outcome, false);
      if (outcome.kind === 'retry-modern' && outcome.version === version) {
        throw new ProtocolError(`the server refused ${version} again while listing it as supported`, {
          server: context.name,
          cause: error,
        });
      }
      if (outcome.kind === 'retry-modern' && version === LATEST_MODERN_VERSION) {
        return followOutcome(connection, context, options, outcome, true);
      }
    }
    throw error;
  }
  const discovered = readDiscoverResult(result);
  if (!discovered && options.mode === 'modern') {
    throw legacyOnly(context, version, 'its server/discover result is not a DiscoverResult');
  }
  if (!discovered)
    throw new ProtocolError('server/discover returned something that is not a DiscoverResult', {
      server: context.name,
    });
  if (!discovered.supportedVersions.includes(version) && !bestCommonVersion(discovered.supportedVersions)) {
    throw new UnsupportedProtocolVersionError(discovered.supportedVersions, version, {
      server: context.name,
    });
  }
  const common = bestCommonVersion(discovered.supportedVersions);
  const chosen = discovered.supportedVersions.includes(version) ? version : common!.version;
  if (!(MODERN_VERSIONS as readonly string[]).includes(chosen)) {
    throw new UnsupportedProtocolVersionError(discovered.supportedVersions, version, {
      server: context.name,
    });
  }
  eraStep(context.name, 'modern', `server/discover answered: modern era, ${chosen}`);
  return new ModernSession(connection, context, chosen, discovered);
}

/** `protocol: 'modern'` met a legacy-only server: permanent, so it is not retried. */
function legacyOnly(
  context: SessionContext,
  version: string,
  evidence: string,
): UnsupportedProtocolVersionError {
  return new UnsupportedProtocolVersionError([], version, {
    server: context.name,
    message: `protocol is 'modern' but the server speaks only the legacy era (${evidence}); use protocol: 'auto' or 'legacy'`,
  });
}

/** The legacy handshake: `initialize` with this version. */
export async function legacy(
  connection: Connection,
  context: SessionContext,
  version: string,
  options: EstablishOptions,
  mayReprobe = true,
): Promise<Session> {
  let result: unknown;
  try {
    result = await connection.request('initialize', initializeParams(context, version), {
      timeout: options.handshakeTimeout,
      cancelOnWire: false,
    });
  } catch (error) {
    return afterInitializeError(connection, context, options, error, mayReprobe);
  }
  return new LegacySession(connection, context, readInitializeResult(result, version, context.name));
}

/** `initialize` answered -32022 with a list: the server is modern after all; probe once with it. */
export async function afterInitializeError(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
  error: unknown,
  mayReprobe: boolean,
): Promise<Session> {
  if (mayReprobe && error instanceof McpError && error.code === UNSUPPORTED_PROTOCOL_VERSION) {
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    const common = Array.isArray(supported) ? bestCommonVersion(supported) : undefined;
    if (common?.era === 'modern') return modernByDiscover(connection, context, common.version, options);
    if (common?.era === 'legacy') return legacy(connection, context, common.version, options, false);
    throw new UnsupportedProtocolVersionError(Array.isArray(supported) ? supported : [], LEGACY_VERSIONS[0], {
      server: context.name,
    });
  }
  throw error;
}
