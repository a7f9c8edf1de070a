import { debug } from '../diagnostics.js';
import { UsageError } from '../errors.js';
import { describe } from '../validate.js';
import type { Session } from './eras/session.js';

/** A root the client exposes to the server (`roots/list`). */
export interface Root {
  /** A `file://` URI; sent normalised. */
  uri: string;
  /** A name to show for it. */
  name?: string;
  /** Metadata for the server. */
  _meta?: Record<string, unknown>;
}

/** A `..` path segment, plain or percent-encoded (`%2e%2e`, `.%2E`, ...). */
const DOT_DOT_SEGMENT = /(^|\/)(\.|%2e){2}(\/|$)/i;

/**
 * Checks one root and returns it with its URI normalised (the WHATWG URL serialisation: percent
 * encoding, `localhost` dropped, `.` segments removed). Returns a problem sentence instead when
 * the root may not be sent: not an object, not a `file://` URI, a `..` segment that would escape
 * the root (refused, never resolved), a query or a fragment, or a name that is not a string.
 */
export function normalizeRoot(value: unknown): Root | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `a root must be an object { uri, name? }, got ${describe(value)}`;
  const { uri, name } = value as { uri?: unknown; name?: unknown };
  if (typeof uri !== 'string') return `a root's uri must be a string, got ${describe(uri)}`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `the root ${JSON.stringify(uri)} is not a URI; roots are file:// URIs such as file:///home/user/project`;
  }
  if (url.protocol !== 'file:')
    return `the root ${JSON.stringify(uri)} is not a file:// URI; roots must be file:// URIs`;
  const path = uri.slice(uri.indexOf(':') + 1).split(/[?#]/, 1)[0]!;
  if (DOT_DOT_SEGMENT.test(path.replaceAll('\\', '/')))
    return `the root ${JSON.stringify(uri)} has a '..' segment; give the resolved directory instead`;
  if (url.search !== '' || url.hash !== '' || uri.includes('?') || uri.includes('#'))
    return `the root ${JSON.stringify(uri)} has a query or fragment; a root names a directory or file only`;
  if (name !== undefined && typeof name !== 'string')
    return `the name of the root ${JSON.stringify(uri)} must be a string, got ${describe(name)}`;
  return { ...(value as Root), uri: url.href };
}

/** Every root normalised, or the first problem (with its index). */
export function normalizeRoots(value: unknown): Root[] | { index: number | undefined; problem: string } {
  if (!Array.isArray(value))
    return { index: undefined, problem: `roots must be an array, got ${describe(value)}` };
  const roots: Root[] = [];
  for (const [index, entry] of value.entries()) {
    const root = normalizeRoot(entry);
    if (typeof root === 'string') return { index, problem: root };
    roots.push(root);
  }
  return roots;
}

/** `setRoots`: the new roots normalised, or a UsageError naming the first problem. */
export function replacedRoots(current: readonly Root[] | undefined, roots: unknown, server: string): Root[] {
  if (current === undefined) {
    throw new UsageError(
      'setRoots() needs the roots option at construction (roots: [] declares the roots capability with listChanged)',
      { server },
    );
  }
  const normalized = normalizeRoots(roots);
  if (Array.isArray(normalized)) return normalized;
  const where = normalized.index === undefined ? '' : ` (roots[${normalized.index}])`;
  throw new UsageError(`setRoots: ${normalized.problem}${where}`, { server });
}

/** Legacy: tells the server its roots changed. A server that asks later (every modern request, every reconnect) needs nothing. */
export function announceRootsChange(session: Session | undefined, server: string): void {
  if (session?.era !== 'legacy') return;
  try {
    session.notify('notifications/roots/list_changed');
  } catch (error) {
    // Lost meanwhile: the next connection's server asks roots/list afresh.
    debug('%s: notifications/roots/list_changed not sent: %s', server, (error as Error).message);
  }
}
