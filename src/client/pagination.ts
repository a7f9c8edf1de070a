import { debug } from '../diagnostics.js';
import { McpError, ProtocolError } from '../errors.js';
import { INVALID_PARAMS } from '../jsonrpc/error-codes.js';
import type { JsonObject } from '../jsonrpc/messages.js';

/** Pages one `list*` call may walk before the server is considered broken. */
export const MAX_PAGES = 1000;

type Page = { nextCursor?: unknown; [key: string]: unknown };

/**
 * Walks every page of a paginated list and merges `key`'s items. Cursors are opaque (an empty
 * string is a cursor, not the end); a missing `nextCursor` ends the walk. A server that repeats a
 * cursor or never ends is stopped with a ProtocolError instead of looping forever.
 */
export async function collectPages(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  key: string,
  server: string,
  maxPages = MAX_PAGES,
): Promise<Page> {
  // The first page's items as a copy of its exact length (a list pushed into from empty keeps room
  // for 17: 120 bytes more for a 2-item list, per server a pool keeps the list of); later pages pushed.
  let items: unknown[] | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(cursor);
    const pageItems = page[key];
    if (Array.isArray(pageItems)) {
      if (items === undefined) items = pageItems.slice();
      else for (const item of pageItems) items.push(item);
    }
    const next = page.nextCursor;
    if (next === undefined || next === null) {
      const { nextCursor: _end, ...rest } = page;
      return { ...rest, [key]: items ?? [] };
    }
    if (typeof next !== 'string')
      throw new ProtocolError(`the server returned a nextCursor that is not a string`, { server });
    if (seen.has(next))
      throw new ProtocolError(`the server repeated the cursor ${JSON.stringify(next)} while listing ${key}`, {
        server,
      });
    if (pages >= maxPages)
      throw new ProtocolError(`the server's ${key} list did not end after ${maxPages} pages`, { server });
    seen.add(next);
    cursor = next;
  }
}

/** The answer to a request that carried a cursor, when the server refuses the cursor (-32602). */
export function isBadCursorError(error: unknown): boolean {
  return error instanceof McpError && error.code === INVALID_PARAMS;
}

/**
 * One page (a `cursor` given) or every page merged, each fetched with `request`. A cursor the
 * server refuses (-32602) or repeats calls `invalidate` (every cached page of that list is
 * stale): a merged walk then starts over once from the first page, a single page rejects (start
 * again without a cursor).
 */
export async function listPages(
  request: (params: JsonObject) => Promise<Page>,
  invalidate: () => void,
  list: { method: string; key: string; params: { cursor?: string } | undefined; server: string },
): Promise<Page> {
  const { method, key, params, server } = list;
  if (params?.cursor !== undefined) {
    try {
      return await request(params);
    } catch (error) {
      if (isBadCursorError(error)) invalidate();
      throw error;
    }
  }
  let cursorFailed = false;
  const walk = () =>
    collectPages(
      (cursor) =>
        request(cursor === undefined ? {} : { cursor }).catch((error: unknown) => {
          if (cursor !== undefined && isBadCursorError(error)) cursorFailed = true;
          throw error;
        }),
      key,
      server,
    );
  try {
    return await walk();
  } catch (error) {
    // A ProtocolError of the walk: a repeated or non-string cursor, or a list that never ends.
    if (!cursorFailed && !(error instanceof ProtocolError)) throw error;
    invalidate();
    if (!cursorFailed) throw error;
    debug(
      '%s: a %s cursor was refused (%s); listing again from the first page',
      server,
      method,
      (error as Error).message,
    );
    return walk();
  }
}
