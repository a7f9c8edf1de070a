import { channels, debug } from '../../diagnostics.js';
import {
  ConnectionClosedError,
  McpError,
  ProtocolError,
  RequestTimeoutError,
  UnsupportedProtocolVersionError,
} from '../../errors.js';
import {
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../jsonrpc/error-codes.js';
import type { JsonRpcRequest } from '../../jsonrpc/messages.js';
import {
  bestCommonVersion,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  type ProtocolMode,
} from '../../protocol/versions.js';
import type { DiscoveryRules } from '../../transport/transport.js';
import type { Connection } from '../connection.js';
import { initializeParams, LegacySession, readInitializeResult } from './legacy.js';
import { type DiscoverResult, ModernSession, modernMeta, readDiscoverResult } from './modern.js';
import type { EraMemory, Session, SessionContext } from './session.js';

/** Whether anyone reads era steps: the hot paths build their detail only then. */
function eraStepsRead(): boolean {
  return debug.enabled || channels.era.hasSubscribers;
}

/** One step of era detection: a debug line, and the `conduit-mcp:client:era` channel (--verbose). */
function eraStep(server: string, step: string, detail: string): void {
  debug('%s: %s', server, detail);
  if (channels.era.hasSubscribers) channels.era.publish({ server, step, detail });
}

/** How the probe went, as a pure classification of what came back. */
export type ProbeOutcome =
  | { kind: 'modern'; version: string; discovered: DiscoverResult }
  /** A recognised modern error (-32022) naming versions: retry with this modern one. */
  | { kind: 'retry-modern'; version: string }
  /** Go legacy, with this version (the newest we have, or one a -32022 list offered). */
  | { kind: 'legacy'; version: string; why: string }
  | { kind: 'unsupported'; supported: string[]; requested: string }
  | { kind: 'fatal'; error: Error };

/** The stdio rule, and the default: every failure to answer as a modern server means legacy. */
const anyErrorMeansLegacy = () => true;

/**
 * Classifies the probe's answer. The fallback to legacy is never keyed to one error code:
 * anything that is not a DiscoverResult or a recognised modern error means legacy, unless the
 * transport's `errorMeansLegacy` says this error carries no era signal (then the attempt fails).
 */
export function classifyProbe(
  answer: { result: unknown } | { error: unknown },
  requested: string,
  errorMeansLegacy: DiscoveryRules['probeErrorMeansLegacy'] = anyErrorMeansLegacy,
): ProbeOutcome {
  if ('result' in answer) {
    const discovered = readDiscoverResult(answer.result);
    if (!discovered)
      return {
        kind: 'legacy',
        version: LATEST_LEGACY_VERSION,
        why: 'the probe result is not a DiscoverResult',
      };
    const common = bestCommonVersion(discovered.supportedVersions);
    if (!common) return { kind: 'unsupported', supported: discovered.supportedVersions, requested };
    if (common.era === 'legacy')
      return { kind: 'legacy', version: common.version, why: 'the only common version is legacy' };
    return { kind: 'modern', version: common.version, discovered };
  }
  const error = answer.error;
  if (error instanceof McpError) {
    const data = error.data as { supported?: unknown; requiredCapabilities?: unknown } | undefined;
    if (error.code === UNSUPPORTED_PROTOCOL_VERSION && Array.isArray(data?.supported)) {
      const supported = data.supported.filter((v): v is string => typeof v === 'string');
      const common = bestCommonVersion(supported);
      if (!common) return { kind: 'unsupported', supported, requested };
      if (common.era === 'legacy')
        return { kind: 'legacy', version: common.version, why: '-32022 offered only legacy versions' };
      // Even the version we sent may be named: some servers refuse a first request as a test
      // (the conformance suite does); modernByDiscover retries it once.
      return { kind: 'retry-modern', version: common.version };
    }
    if (error.code === MISSING_REQUIRED_CLIENT_CAPABILITY && typeof data?.requiredCapabilities === 'object') {
      return { kind: 'fatal', error };
    }
    if (!errorMeansLegacy(error)) return { kind: 'fatal', error };
    return {
      kind: 'legacy',
      version: LATEST_LEGACY_VERSION,
      why: `the probe was answered with error ${error.code}`,
    };
  }
  if (!errorMeansLegacy(error)) return { kind: 'fatal', error: error as Error };
  return { kind: 'legacy', version: LATEST_LEGACY_VERSION, why: (error as Error).message };
}

/** The process exited while it was being probed: restart it and go straight to `initialize`. */
export class ProbeExitError extends Error {
  constructor(override readonly cause: ConnectionClosedError) {
    super(`the server exited during the era probe (${cause.message})`);
  }
}

const PROBE_TIMED_OUT = Symbol('probe timed out');

/** Server requests held until the era is known; later ones are dropped (a debug line counts them). */
export const MAX_HELD_REQUESTS = 32;

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

/**
 * Opening a session on a fresh connection takes two steps: this, then chooseSession (from memory
 * if we have one, else by the probe, the legacy handshake, or both). Server requests that arrive
 * before the era is known are held here; `release` answers them (legacy) or drops them (modern).
 */
export function holdEarlyRequests(connection: Connection): {
  release(session: Session, server: string): Session;
} {
  const held: JsonRpcRequest[] = [];
  let dropped = 0;
  connection.onRequest = (request) => {
    if (held.length < MAX_HELD_REQUESTS) held.push(request);
    else dropped++;
  };
  return {
    release(session, server) {
      if (dropped > 0) {
        debug(
          '%s: dropped %d requests the server sent before the era was known (%d held)',
          server,
          dropped,
          MAX_HELD_REQUESTS,
        );
      }
      if (session instanceof LegacySession) {
        session.finishHandshake();
        for (const request of held) session.answer(request);
      } else {
        connection.onRequest = undefined;
        if (held.length > 0) debug('%s: dropped %d requests from a modern server', server, held.length);
        (session as ModernSession).finishHandshake();
      }
      return session;
    },
  };
}

/** The promise of the chosen way in: returned as it is, not awaited in a layer of its own. */
export function chooseSession(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
): Promise<Session> {
  const { memory } = options;
  if (options.mode === 'legacy') {
    if (eraStepsRead())
      eraStep(context.name, 'legacy', `protocol legacy: initialize (${LATEST_LEGACY_VERSION}), no probe`);
    return legacy(connection, context, LATEST_LEGACY_VERSION, options);
  }
  if (options.mode === 'modern') {
    eraStep(
      context.name,
      'probe',
      `protocol modern: server/discover (${LATEST_MODERN_VERSION}) must succeed`,
    );
    return modernByDiscover(connection, context, LATEST_MODERN_VERSION, options);
  }
  if (memory?.era === 'legacy') return rememberedLegacy(connection, context, memory.version, options);
  return probe(connection, context, options);
}

/**
 * A remembered legacy era: initialize straight away. A remembered modern era is checked, not
 * trusted: the probe confirms it on this process with one server/discover round trip, and finds
 * a server that now speaks only legacy before `ready`.
 */
async function rememberedLegacy(
  connection: Connection,
  context: SessionContext,
  version: string,
  options: EstablishOptions,
): Promise<Session> {
  eraStep(context.name, 'legacy', `legacy era remembered: initialize (${version})`);
  try {
    return await legacy(connection, context, version, options);
  } catch (error) {
    // The remembered era was wrong the way a wrong era fails: probe this process afresh.
    if (!(error instanceof McpError)) throw error;
    eraStep(context.name, 'probe', `initialize failed (${error.message}); probing again`);
  }
  // Awaited: an async function returning a promise takes two more microtask turns to settle.
  return await probe(connection, context, options);
}

async function probe(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
): Promise<Session> {
  const requested = LATEST_MODERN_VERSION;
  if (eraStepsRead()) eraStep(context.name, 'probe', `probing the era: server/discover (${requested})`);
  const silenceMeansLegacy = options.discovery.probeTimeoutMeansLegacy;
  const started = connection.start(
    'server/discover',
    { _meta: modernMeta(context, requested) },
    // The probe is never cancelled on the wire (a legacy server wants initialize first). Where
    // silence means legacy (stdio) it is kept alive past probeTimeout, so a late DiscoverResult can
    // still win; elsewhere (HTTP) silence is a failure, and the connection times the probe out as
    // any request (a RequestTimeoutError, on its shared timer lane: no timer of the probe's own).
    { cancelOnWire: false, timeout: silenceMeansLegacy ? Number.POSITIVE_INFINITY : options.probeTimeout },
  );
  let first: { result: unknown } | { error: unknown } | typeof PROBE_TIMED_OUT;
  if (silenceMeansLegacy) {
    const answer = started.promise.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    first = (await withTimeout(connection, answer, options.probeTimeout)) ?? PROBE_TIMED_OUT;
    if (first === PROBE_TIMED_OUT) {
      eraStep(
        context.name,
        'timeout',
        `no answer to server/discover within ${options.probeTimeout} ms; trying initialize (${LATEST_LEGACY_VERSION})`,
      );
      return legacyOrLateModern(connection, context, options, started.id, answer);
    }
  } else {
    // Awaited as it is (no promise of its own to wrap the answer): one microtask turn.
    try {
      first = { result: await started.promise };
    } catch (error) {
      first = { error };
    }
  }
  if ('error' in first && first.error instanceof ConnectionClosedError) {
    if (options.discovery.closeDuringProbeMeansLegacy) throw new ProbeExitError(first.error);
    throw first.error;
  }
  if ('error' in first && first.error instanceof RequestTimeoutError) throw first.error;
  const outcome = classifyProbe(first, requested, options.discovery.probeErrorMeansLegacy);
  // A modern answer is the session at once: no layer of followOutcome's to settle first.
  if (outcome.kind === 'modern') return modernFromProbe(connection, context, outcome);
  return await followOutcome(connection, context, options, outcome, true);
}

function modernFromProbe(
  connection: Connection,
  context: SessionContext,
  outcome: Extract<ProbeOutcome, { kind: 'modern' }>,
): ModernSession {
  if (eraStepsRead())
    eraStep(context.name, 'modern', `server/discover answered: modern era, ${outcome.version}`);
  return new ModernSession(connection, context, outcome.version, outcome.discovered);
}

async function followOutcome(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
  outcome: ProbeOutcome,
  mayRetry: boolean,
): Promise<Session> {
  switch (outcome.kind) {
    case 'modern':
      return modernFromProbe(connection, context, outcome);
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
async function modernByDiscover(
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
  if (eraStepsRead()) eraStep(context.name, 'modern', `server/discover answered: modern era, ${chosen}`);
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

async function legacy(
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
async function afterInitializeError(
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

/**
 * The probe timed out: run `initialize`, but keep listening for the probe. A successful
 * `initialize` always means legacy: a dual-era server switches the process to legacy once it
 * receives `initialize` (spec a.5; the SDK's `serveStdio` pins its legacy instance), even if it
 * answered the probe first. A late DiscoverResult means modern only when `initialize` is refused
 * or not answered within the grace below. The loser is abandoned locally (never cancelled on the wire).
 */
async function legacyOrLateModern(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
  probeId: ReturnType<Connection['start']>['id'],
  probeAnswer: Promise<{ result: unknown } | { error: unknown }>,
): Promise<Session> {
  const version = LATEST_LEGACY_VERSION;
  const init = connection.start('initialize', initializeParams(context, version), {
    timeout: options.handshakeTimeout,
    cancelOnWire: false,
  });
  const initAnswer = init.promise.then(
    (result) => ({ from: 'initialize' as const, result }),
    (error: unknown) => ({ from: 'initialize' as const, error }),
  );
  type Winner =
    | Awaited<typeof initAnswer>
    | { from: 'probe'; outcome: Extract<ProbeOutcome, { kind: 'modern' }> };
  const lateModern = probeAnswer.then((answer): Winner | Promise<Winner> => {
    const outcome = classifyProbe(answer, LATEST_MODERN_VERSION);
    // Only a usable DiscoverResult can overtake initialize; anything else waits for initialize.
    return outcome.kind === 'modern' ? { from: 'probe', outcome } : initAnswer;
  });
  let winner: Winner = await Promise.race([initAnswer, lateModern]);
  if (winner.from === 'probe') {
    // The server answers in order, so initialize's answer follows right behind the DiscoverResult.
    const behind = await withTimeout(
      connection,
      initAnswer,
      Math.max(options.probeTimeout, LATE_INITIALIZE_GRACE),
    );
    if (behind && 'result' in behind) winner = behind;
  }
  if (winner.from === 'probe') {
    eraStep(
      context.name,
      'late-modern',
      'a late DiscoverResult arrived and initialize was not accepted: modern era',
    );
    connection.abandon(init.id, new Error('superseded by a late DiscoverResult'));
    const { version: modernVersion, discovered } = winner.outcome;
    return new ModernSession(connection, context, modernVersion, discovered);
  }
  if ('error' in winner) {
    // initialize was refused while the probe is still out: a modern-only server that started
    // slowly answers them in order, so give the probe a while longer to arrive.
    const late = await withTimeout(
      connection,
      probeAnswer,
      Math.max(options.probeTimeout, LATE_INITIALIZE_GRACE),
    );
    const outcome = late && classifyProbe(late, LATEST_MODERN_VERSION);
    if (outcome?.kind === 'modern') {
      eraStep(
        context.name,
        'late-modern',
        'initialize was refused and a late DiscoverResult arrived: modern era',
      );
      return new ModernSession(connection, context, outcome.version, outcome.discovered);
    }
    connection.abandon(probeId, new Error('superseded by initialize'));
    return afterInitializeError(connection, context, options, winner.error, true);
  }
  connection.abandon(probeId, new Error('superseded by initialize'));
  eraStep(context.name, 'legacy', 'initialize succeeded after the probe timeout: legacy era');
  return new LegacySession(connection, context, readInitializeResult(winner.result, version, context.name));
}

/** How long, at least, a late DiscoverResult waits for the answer to the `initialize` behind it. */
const LATE_INITIALIZE_GRACE = 1000;

/** `promise`, or undefined after `ms` of the connection's clock (which stops while the user is asked to consent). */
function withTimeout<T>(connection: Connection, promise: Promise<T>, ms: number): Promise<T | undefined> {
  // One promise settled by whichever comes first (no race, no promise of its own for the delay).
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = connection.clock.setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        timer.clear();
        resolve(value);
      },
      (error: unknown) => {
        timer.clear();
        reject(error);
      },
    );
  });
}
