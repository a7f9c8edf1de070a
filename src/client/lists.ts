import { debug } from '../diagnostics.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { screenIcons } from '../protocol/icons.js';
import type { RequestOptions } from './connection.js';
import type { Listed } from './listed.js';
import { listPages } from './pagination.js';
import type { RequestPipeline } from './request-pipeline.js';
import { taskCapabilityError, tasksMethodRefusal } from './tasks.js';

/**
 * A list method (`tools/list`, `prompts/list`...): every page merged, or the one page `cursor`
 * asks for. Icons with an unsafe source are left out; a complete list is remembered (output
 * schemas, task support, prompt arguments).
 */
export async function listAll(
  requests: RequestPipeline,
  listed: Listed,
  server: string,
  list: { method: string; key: string },
  params: { cursor?: string } | undefined,
  options: RequestOptions | undefined,
): Promise<Record<string, unknown>> {
  const { method, key } = list;
  if (method === 'tasks/list') {
    const session = await requests.whenReady(method, options);
    const refusal = tasksMethodRefusal(session, method);
    if (refusal) throw taskCapabilityError(method, refusal, server);
  }
  const request = (page: JsonObject) =>
    requests.request(method, page, options) as Promise<Record<string, unknown>>;
  const invalidate = () => requests.cache?.invalidate(method);
  let result = await listPages(request, invalidate, { method, key, params, server });
  const items = result[key];
  if (Array.isArray(items)) {
    const dropped = { count: 0 };
    const screened = items.map((item) => screenIcons(item, dropped));
    if (dropped.count > 0) {
      // A new object: a cached result is never changed in place.
      result = { ...result, [key]: screened };
      debug('%s: %s: left out %d icons with an unsafe source', server, method, dropped.count);
    }
  }
  listed.remember(method, result);
  return result;
}
