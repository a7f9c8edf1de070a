import { LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from '../../protocol/versions.js';
import type { Connection } from '../connection.js';
import { waitFor } from '../wait.js';
import { eraStep } from './era-step.js';
import { afterInitializeError, type EstablishOptions } from './handshakes.js';
import { initializeParams, LegacySession, readInitializeResult } from './legacy.js';
import { ModernSession } from './modern.js';
import { classifyProbe, type ProbeAnswer, type ProbeOutcome } from './probe-outcome.js';
import type { Session, SessionContext } from './session.js';

/** How long, at least, a late DiscoverResult waits for the answer to the `initialize` behind it. */
const LATE_INITIALIZE_GRACE = 1000;

type InitializeAnswer = { from: 'initialize'; result: unknown } | { from: 'initialize'; error: unknown };
type LateModern = { from: 'probe'; outcome: Extract<ProbeOutcome, { kind: 'modern' }> };

/**
 * The probe timed out: run `initialize`, but keep listening for the probe. A successful
 * `initialize` always means legacy: a dual-era server switches the process to legacy once it
 * receives `initialize` (spec a.5; the SDK's `serveStdio` pins its legacy instance), even if it
 * answered the probe first. A late DiscoverResult means modern only when `initialize` is refused
 * or not answered within the grace below. The loser is abandoned locally (never cancelled on the wire).
 */
export async function legacyOrLateModern(
  connection: Connection,
  context: SessionContext,
  options: EstablishOptions,
  probeId: ReturnType<Connection['start']>['id'],
  probeAnswer: Promise<ProbeAnswer>,
): Promise<Session> {
  const version = LATEST_LEGACY_VERSION;
  const init = connection.start('initialize', initializeParams(context, version), {
    timeout: options.handshakeTimeout,
    cancelOnWire: false,
  });
  const initAnswer = init.promise.then(
    (result): InitializeAnswer => ({ from: 'initialize', result }),
    (error: unknown): InitializeAnswer => ({ from: 'initialize', error }),
  );
  // Only a usable DiscoverResult can overtake initialize; anything else waits for initialize.
  const lateModern = probeAnswer.then<LateModern | InitializeAnswer>((answer) => {
    const outcome = classifyProbe(answer, LATEST_MODERN_VERSION);
    return outcome.kind === 'modern' ? { from: 'probe', outcome } : initAnswer;
  });
  const grace = Math.max(options.probeTimeout, LATE_INITIALIZE_GRACE);
  const within = <T>(promise: Promise<T>): Promise<T | undefined> =>
    waitFor(promise, { clock: connection.clock, timeout: grace, onTimeout: () => undefined });

  let winner: InitializeAnswer | LateModern = await Promise.race([initAnswer, lateModern]);
  if (winner.from === 'probe') {
    // The server answers in order, so initialize's answer follows right behind the DiscoverResult.
    const behind = await within(initAnswer);
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
    const late = await within(probeAnswer);
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
