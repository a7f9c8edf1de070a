import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/results.js';
import { NameCollisionError } from './errors.js';
import type { PoolMember } from './member.js';
import { poolName } from './names.js';
import type { ResolvedPoolOptions } from './options.js';

/** Where a pool entry comes from. */
export interface PoolOrigin {
  /** The server's name in the pool. */
  readonly server: string;
  /** Whether the server can take calls now; false while it is down (its last known list is shown). */
  readonly available: boolean;
}

/** A tool under its pool name; `originalName` is the server's own. */
export type PoolTool = Tool &
  PoolOrigin & {
    /** The tool's name on its server. */
    readonly originalName: string;
  };
/** A prompt under its pool name; `originalName` is the server's own. */
export type PoolPrompt = Prompt &
  PoolOrigin & {
    /** The prompt's name on its server. */
    readonly originalName: string;
  };
/** A resource of a pool server, its URI unchanged. */
export type PoolResource = Resource & PoolOrigin;
/** A resource template of a pool server, unchanged. */
export type PoolResourceTemplate = ResourceTemplate & PoolOrigin;

export interface Named<T> {
  readonly byName: Map<string, { member: PoolMember; item: T & PoolOrigin & { originalName: string } }>;
  readonly list: Array<T & PoolOrigin & { originalName: string }>;
  /** The first collision found, if any (in the pool's server order, then each server's list order). */
  readonly collision: NameCollisionError | undefined;
}

/** Shown while ready, or down with a last known list (unless `drop`); never for disabled or closed servers. */
export function shown(member: PoolMember, drop: boolean): boolean {
  const state = member.state;
  if (state === 'ready') return true;
  if (state === 'disabled' || state === 'closed' || state === 'idle') return false;
  return !drop;
}

/** Merges the servers' tools or prompts under pool names. */
export function nameItems(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  kind: 'tool' | 'prompt',
): Named<Tool | Prompt> {
  const byName: Named<Tool | Prompt>['byName'] = new Map();
  const list: Named<Tool | Prompt>['list'] = [];
  let collision: NameCollisionError | undefined;
  for (const member of members) {
    if (!shown(member, options.dropUnavailable)) continue;
    const available = member.state === 'ready';
    for (const original of member.items(kind === 'tool' ? 'tools' : 'prompts') ?? []) {
      const name = poolName(member.name, original.name, options.names);
      const item = { ...original, name, server: member.name, originalName: original.name, available };
      const existing = byName.get(name);
      if (existing) {
        const error = new NameCollisionError(
          name,
          [existing.item.server, member.name],
          [existing.item.originalName, original.name],
          kind,
        );
        collision ??= error;
        continue;
      }
      byName.set(name, { member, item });
      list.push(item);
    }
  }
  return { byName, list, collision };
}

/**
 * The one item behind a pool name, for routing a call: the same names as nameItems without building
 * the merged list. A collision on that name is an error; undefined when no item has it.
 */
export function findNamed(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  kind: 'tool' | 'prompt',
  wanted: string,
): { member: PoolMember; originalName: string } | NameCollisionError | undefined {
  let found: { member: PoolMember; originalName: string } | undefined;
  for (const member of members) {
    if (!shown(member, options.dropUnavailable)) continue;
    for (const original of member.items(kind === 'tool' ? 'tools' : 'prompts') ?? []) {
      if (poolName(member.name, original.name, options.names) !== wanted) continue;
      if (found) {
        return new NameCollisionError(
          wanted,
          [found.member.name, member.name],
          [found.originalName, original.name],
          kind,
        );
      }
      found = { member, originalName: original.name };
    }
  }
  return found;
}

/** A URI template (RFC 6570) as a regular expression that matches the URIs it can expand to. */
export function templatePattern(template: string): RegExp {
  let source = '';
  let last = 0;
  for (const match of template.matchAll(/\{([^}]*)\}/g)) {
    source += escapeRegExp(template.slice(last, match.index));
    const operator = match[1]![0];
    source += operator === '+' || operator === '#' || operator === '/' ? '.*' : '[^/?#]*';
    last = match.index + match[0].length;
  }
  return new RegExp(`^${source}${escapeRegExp(template.slice(last))}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
