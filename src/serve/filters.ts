import { readFileSync } from 'node:fs';
import { parseJsonc } from '../config/jsonc.js';
import { ConfigError } from '../errors.js';

/** A glob as a whole-name test: `*` any run of characters, `?` one, everything else itself. */
export function globPattern(glob: string): RegExp {
  let source = '';
  for (const character of glob) {
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else source += character.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/** Allow and deny globs, each list applied when not empty. */
export interface FilterRules {
  /** Globs a name must match one of (none given: every name passes). */
  readonly allow: readonly string[];
  /** Globs no name may match. */
  readonly deny: readonly string[];
}

/** Which tools the host sees and may call: the command line's rules on pool names, each entry's on its own names. */
export class ToolFilter {
  readonly #allow: RegExp[];
  readonly #deny: RegExp[];
  readonly #perServer: Map<string, { allow: RegExp[]; deny: RegExp[] }>;

  /** `perServer`: a config entry's `allowTools`/`denyTools`, on the server's own tool names. */
  constructor(global: FilterRules, perServer: ReadonlyMap<string, FilterRules> = new Map()) {
    this.#allow = global.allow.map(globPattern);
    this.#deny = global.deny.map(globPattern);
    this.#perServer = new Map(
      [...perServer].map(([server, rules]) => [
        server,
        { allow: rules.allow.map(globPattern), deny: rules.deny.map(globPattern) },
      ]),
    );
  }

  /** Whether a tool passes: its pool name against the global rules, its own name against its server's. */
  passes(tool: { name: string; server: string; originalName: string }): boolean {
    if (!admitted(tool.name, this.#allow, this.#deny)) return false;
    const own = this.#perServer.get(tool.server);
    return own === undefined || admitted(tool.originalName, own.allow, own.deny);
  }
}

function admitted(name: string, allow: readonly RegExp[], deny: readonly RegExp[]): boolean {
  if (allow.length > 0 && !allow.some((pattern) => pattern.test(name))) return false;
  return !deny.some((pattern) => pattern.test(name));
}

/**
 * A config entry's `allowTools` / `denyTools`: arrays of globs on the server's own tool names.
 * Throws ConfigError naming the file and key when one is not an array of strings.
 */
export function entryFilterRules(
  file: string,
  entries: Readonly<Record<string, unknown>>,
): Map<string, FilterRules> {
  const rules = new Map<string, FilterRules>();
  for (const [name, raw] of Object.entries(entries)) {
    if (typeof raw !== 'object' || raw === null) continue;
    const entry = raw as Record<string, unknown>;
    if (entry.allowTools === undefined && entry.denyTools === undefined) continue;
    rules.set(name, {
      allow: globList(file, `${name}.allowTools`, entry.allowTools),
      deny: globList(file, `${name}.denyTools`, entry.denyTools),
    });
  }
  return rules;
}

function globList(file: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new ConfigError(
      key,
      `${file}: ${key}: must be an array of tool-name globs (e.g. ["read_*"]), got ${JSON.stringify(value)}`,
    );
  }
  return value as string[];
}

/**
 * The `allowTools` / `denyTools` of a config file's entries (under `mcpServers` or `servers`).
 * The pool has read and checked the file already; this reads only those two keys.
 */
export function configFilterRules(file: string): Map<string, FilterRules> {
  const parsed = parseJsonc(readFileSync(file, 'utf8'));
  if (!('value' in parsed) || typeof parsed.value !== 'object' || parsed.value === null) return new Map();
  const root = parsed.value as Record<string, unknown>;
  const entries = root.mcpServers ?? root.servers;
  if (typeof entries !== 'object' || entries === null) return new Map();
  return entryFilterRules(file, entries as Record<string, unknown>);
}
