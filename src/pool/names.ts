import { createHash } from 'node:crypto';

/** How pool names are made: what the caller joins, which characters survive, how long a name may be. */
export interface NameRule {
  readonly join: (server: string, name: string) => string;
  /** Matches one allowed character (no g or y flag); any other is replaced by `_`. */
  readonly characters: RegExp;
  readonly maxLength: number;
}

/** The default: `<server>__<tool>`, `^[a-zA-Z0-9_-]{1,64}$` (what the main model APIs accept). */
export const DEFAULT_NAME_RULE: NameRule = {
  join: (server, name) => `${server}__${name}`,
  characters: /[a-zA-Z0-9_-]/,
  maxLength: 64,
};

const HASH_LENGTH = 8;

/** A short stable hash of a server and a name: the same pair always gives the same suffix. */
function shortHash(server: string, name: string): string {
  return createHash('sha256').update(`${server}\u0000${name}`).digest('hex').slice(0, HASH_LENGTH);
}

/** A character class as a test of one character: without g or y, whose lastIndex would make test() skip. */
export function characterTest(characters: RegExp): RegExp {
  const flags = characters.flags.replace(/[gy]/g, '');
  return flags === characters.flags ? characters : new RegExp(characters.source, flags);
}

/**
 * The pool name of a server's tool or prompt: joined, each character outside the rule replaced by
 * `_`, and if still too long, cut and ended with `_` and the hash of server and name, so the
 * result never depends on load order and stays unique even when two long names share a prefix.
 */
export function poolName(server: string, name: string, rule: NameRule): string {
  let safe = '';
  for (const character of rule.join(server, name)) safe += rule.characters.test(character) ? character : '_';
  if (safe.length === 0) safe = `_${shortHash(server, name)}`;
  if (safe.length <= rule.maxLength) return safe;
  const head = safe.slice(0, Math.max(0, rule.maxLength - HASH_LENGTH - 1));
  return `${head}_${shortHash(server, name)}`.slice(-rule.maxLength);
}
