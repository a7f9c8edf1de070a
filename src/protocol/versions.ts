/** The two protocol eras: modern (2026-07-28 and later, stateless) and legacy (`initialize`). */
export type Era = 'modern' | 'legacy';

/** `'auto'` probes with `server/discover`; `'modern'` and `'legacy'` skip the probe. */
export type ProtocolMode = 'auto' | Era;

/** Modern versions we implement, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

/** Legacy versions we implement, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** The revision whose servers have no protected resource metadata (authorization at the origin's defaults). */
export const NO_RESOURCE_METADATA_VERSION = '2025-03-26';

export const LATEST_MODERN_VERSION = MODERN_VERSIONS[0];
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

/** The era of a version we implement, or undefined for one we do not. */
export function eraOf(version: string): Era | undefined {
  if ((MODERN_VERSIONS as readonly string[]).includes(version)) return 'modern';
  if ((LEGACY_VERSIONS as readonly string[]).includes(version)) return 'legacy';
  return undefined;
}

/** Every version we implement, modern before legacy, newest first in each (made once). */
const OURS_BEST_FIRST: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/**
 * The newest version in both our list and `offered` (modern before legacy), or undefined.
 * Server strings are never sorted or parsed: only versions we implement can be chosen.
 */
export function bestCommonVersion(offered: readonly unknown[]): { version: string; era: Era } | undefined {
  for (const version of OURS_BEST_FIRST) {
    if (offered.includes(version)) return { version, era: eraOf(version)! };
  }
  return undefined;
}
