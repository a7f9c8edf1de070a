import { NameCollisionError, ServerUnavailableError, UnknownNameError } from './errors.js';
import type { ListKind } from './list-cache.js';
import type { PoolMember } from './member.js';
import { findNamed, nameItems, templatePattern } from './namespace.js';
import type { ResolvedPoolOptions } from './options.js';
import type { ServerState } from './server-status.js';

/** The states in which a server takes no call. */
const DOWN: ReadonlySet<ServerState> = new Set([
  'reconnecting',
  'needs_auth',
  'failed',
  'disabled',
  'closed',
]);

/** Starts lazy servers, waits for those starting, and refreshes the list on every ready one. */
export async function gatherList(members: readonly PoolMember[], kind: ListKind): Promise<void> {
  await Promise.all(members.map((member) => member.start()));
  await Promise.all(members.map((member) => member.fresh(kind)));
}

/**
 * The server and original name behind a pool tool or prompt name, once that server can take the
 * call. Throws UnknownNameError, NameCollisionError, or ServerUnavailableError.
 */
export async function routeName(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  kind: 'tool' | 'prompt',
  name: string,
): Promise<{ member: PoolMember; originalName: string }> {
  const list = kind === 'tool' ? 'tools' : 'prompts';
  const lookup = () => findNamed(members, options, kind, name);
  let found = lookup();
  if (found === undefined) {
    // The ready servers' lists first (during connect() none is fetched yet), without waiting for
    // the servers still starting: a hung one would hold the call for its whole startTimeout.
    await Promise.all(members.map((member) => member.fresh(list)));
    found = lookup();
  }
  if (found === undefined) {
    await gatherList(members, list);
    found = lookup();
  }
  if (found instanceof NameCollisionError) throw found;
  if (!found) {
    const known = nameItems(members, options, kind).list.map((item) => item.name);
    throw new UnknownNameError(
      kind,
      name,
      `no pool server has a ${kind} named ${JSON.stringify(name)}; the pool's ${kind}s are ${known.slice(0, 20).join(', ') || 'none'}${known.length > 20 ? ', ...' : ''}${unknownLists(members, list)}`,
    );
  }
  await ensureUsable(found.member, `${kind === 'tool' ? 'tools/call' : 'prompts/get'} ${name}`);
  return found;
}

/** The servers down without a known list, whose names cannot be routed yet (and why). */
function unknownLists(members: readonly PoolMember[], list: 'tools' | 'prompts'): string {
  const down = members.filter((m) => DOWN.has(m.state) && m.items(list) === undefined);
  if (down.length === 0) return '';
  const why = (m: PoolMember) => `${m.name} (${m.state}${m.error ? `: ${m.error.message}` : ''})`;
  return `; not known yet from the servers that are down: ${down.map(why).join(', ')}`;
}

/** The server that lists a resource, else the first whose template matches its URI. */
export function resourceOwner(members: readonly PoolMember[], uri: string): PoolMember | undefined {
  const listed = members.find((member) => member.items('resources')?.some((r) => r.uri === uri));
  if (listed) return listed;
  return members.find((member) =>
    member.items('resourceTemplates')?.some((t) => templatePattern(t.uriTemplate).test(uri)),
  );
}

/** Starts an idle server; throws ServerUnavailableError (its last error as cause) while it cannot take `what`. */
export async function ensureUsable(member: PoolMember, what: string): Promise<void> {
  if (member.state === 'idle') await member.start();
  if (!DOWN.has(member.state) && member.client) return;
  const { state, error, nextAttemptAt } = member.status();
  const next =
    nextAttemptAt !== undefined ? ` (next attempt in ${Math.max(0, nextAttemptAt - Date.now())} ms)` : '';
  const why =
    state === 'disabled'
      ? 'the server is disabled in its config'
      : state === 'closed'
        ? 'the pool is closed'
        : `the server is ${state.replace('_', ' ')}${next}${error ? `; last error: ${error.message}` : ''}`;
  throw new ServerUnavailableError(
    member.name,
    state,
    `${what} is unavailable: ${why}`,
    error ? { cause: error } : undefined,
  );
}
