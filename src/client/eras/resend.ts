import { HttpError, McpError } from '../../errors.js';
import { HEADER_MISMATCH } from '../../jsonrpc/error-codes.js';
import type { RequestId } from '../../jsonrpc/messages.js';

/**
 * When a modern request goes to the server a second time. A broken event stream loses the
 * request (2026-07-28 changelog): only the methods without side effects are sent again, with a
 * new id. A HeaderMismatch (-32020) on a tools/call means the `Mcp-Param-*` headers came from a
 * stale schema (or none): tools/list is read again and the call sent once more.
 */

/** Methods sent again after a broken stream: none of them changes anything on the server. */
export const REISSUABLE: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'ping',
]);

/** Pages of tools/list read, at most, to find a tool again after a HeaderMismatch. */
export const MAX_RELIST_PAGES = 10;

/** The failure of a request whose event stream ended before its response. */
export function isBrokenStream(error: unknown): error is HttpError {
  return error instanceof HttpError && error.kind === 'stream_broken';
}

/** The broken-stream failure of a request that is not sent again, saying why. */
export function notSentAgain(error: HttpError, method: string, id: RequestId | undefined): HttpError {
  return new HttpError(
    'stream_broken',
    `the event stream for ${method} (id ${String(id)}) ended before its response; it may have run, so it is not sent again`,
    error.details,
    { server: error.server },
  );
}

export function isHeaderMismatch(error: unknown): error is McpError {
  return error instanceof McpError && error.code === HEADER_MISMATCH;
}

/**
 * Lists tools page by page until `name` shows up, the pages end, or MAX_RELIST_PAGES were read:
 * the listings pass through the transport, which reads the tool's current `x-mcp-header`
 * bindings from them. Rejects with the first failure.
 */
export async function relistTools(name: string, list: (cursor?: string) => Promise<unknown>): Promise<void> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_RELIST_PAGES; page++) {
    const result = (await list(cursor)) as { tools?: Array<{ name?: unknown }>; nextCursor?: unknown } | null;
    if (result?.tools?.some?.((tool) => tool?.name === name)) return;
    if (typeof result?.nextCursor !== 'string') return;
    cursor = result.nextCursor;
  }
}
