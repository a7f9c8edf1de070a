import { type ConnectionClosedError, McpError } from '../../errors.js';
import {
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
} from '../../jsonrpc/error-codes.js';
import { bestCommonVersion, LATEST_LEGACY_VERSION } from '../../protocol/versions.js';
import type { DiscoveryRules } from '../../transport/transport.js';
import { type DiscoverResult, readDiscoverResult } from './modern.js';

/** How the probe went, as a pure classification of what came back. */
export type ProbeOutcome =
  | { kind: 'modern'; version: string; discovered: DiscoverResult }
  /** A recognised modern error (-32022) naming versions: retry with this modern one. */
  | { kind: 'retry-modern'; version: string }
  /** Go legacy, with this version (the newest we have, or one a -32022 list offered). */
  | { kind: 'legacy'; version: string; why: string }
  | { kind: 'unsupported'; supported: string[]; requested: string }
  | { kind: 'fatal'; error: Error };

/** What came back to a `server/discover`: its result or its failure. */
export type ProbeAnswer = { result: unknown } | { error: unknown };

/** The probe's promise as the answer it settles with (never rejects). */
export function answerOf(promise: Promise<unknown>): Promise<ProbeAnswer> {
  return promise.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
}

/** The stdio rule, and the default: every failure to answer as a modern server means legacy. */
const anyErrorMeansLegacy = () => true;

/**
 * Classifies the probe's answer. The fallback to legacy is never keyed to one error code:
 * anything that is not a DiscoverResult or a recognised modern error means legacy, unless the
 * transport's `errorMeansLegacy` says this error carries no era signal (then the attempt fails).
 */
export function classifyProbe(
  answer: ProbeAnswer,
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
