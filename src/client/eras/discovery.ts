import { ConnectionClosedError, McpError, RequestTimeoutError } from '../../errors.js';
import { LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from '../../protocol/versions.js';
import type { Connection } from '../connection.js';
import { waitFor } from '../wait.js';
import { holdEarlyRequests } from './early-requests.js';
import { eraStep } from './era-step.js';
import { type EstablishOptions, followOutcome, legacy, modernByDiscover } from './handshakes.js';
import { legacyOrLateModern } from './late-discover-race.js';
import { modernMeta } from './modern.js';
import { answerOf, classifyProbe, ProbeExitError } from './probe-outcome.js';
import type { Session, SessionContext } from './session.js';

export { holdEarlyRequests, MAX_HELD_REQUESTS } from './early-requests.js';
export type { EstablishOptions } from './handshakes.js';
export { classifyProbe, ProbeExitError, type ProbeOutcome } from './probe-outcome.js';

/**
 * Opens the session on a fresh, started connection: server requests are held while the way in is
 * chosen, then answered (legacy) or dropped (modern).
 */
export async function openSession(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
): Promise<Session> {
  const held = holdEarlyRequests(connection);
  return held.release(await chooseSession(connection, context, options), context.name);
}

/** The way in: `initialize` straight away, `server/discover` that must succeed, or the probe. */
export function chooseSession(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
): Promise<Session> {
  const { memory } = options;
  if (options.mode === 'legacy') {
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
  return probe(connection, context, options);
}

async function probe(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
): Promise<Session> {
  const requested = LATEST_MODERN_VERSION;
  eraStep(context.name, 'probe', `probing the era: server/discover (${requested})`);
  const { discovery, probeTimeout } = options;
  const silenceMeansLegacy = discovery.probeTimeoutMeansLegacy;
  const started = connection.start(
    'server/discover',
    { _meta: modernMeta(context, requested) },
    // The probe is never cancelled on the wire (a legacy server wants initialize first). Where
    // silence means legacy (stdio) it is kept alive past probeTimeout, so a late DiscoverResult can
    // still win; elsewhere (HTTP) silence is a failure: the probe times out as any request does.
    { cancelOnWire: false, timeout: silenceMeansLegacy ? Number.POSITIVE_INFINITY : probeTimeout },
  );
  const answer = answerOf(started.promise);
  const first = silenceMeansLegacy
    ? await waitFor(answer, { clock: connection.clock, timeout: probeTimeout, onTimeout: () => undefined })
    : await answer;
  if (first === undefined) {
    eraStep(
      context.name,
      'timeout',
      `no answer to server/discover within ${probeTimeout} ms; trying initialize (${LATEST_LEGACY_VERSION})`,
    );
    return legacyOrLateModern(connection, context, options, started.id, answer);
  }
  if ('error' in first && first.error instanceof ConnectionClosedError) {
    if (discovery.closeDuringProbeMeansLegacy) throw new ProbeExitError(first.error);
    throw first.error;
  }
  if ('error' in first && first.error instanceof RequestTimeoutError) throw first.error;
  const outcome = classifyProbe(first, requested, discovery.probeErrorMeansLegacy);
  return followOutcome(connection, context, options, outcome, true);
}
