// Every client of the HTTP scenarios, by the same ids as the stdio ones (so --clients applies).
// Adding one: a file beside this one exporting an HttpClientKind, and a line here.
import type { ClientId } from '../types.js';
import { conduitHttp, conduitHttpBaseline } from './conduit.js';
import { rawHttp } from './raw.js';
import { sdk1Http } from './sdk1.js';
import { sdk2Http } from './sdk2.js';
import type { HttpClientKind } from './types.js';

export * from './types.js';

export const HTTP_CLIENTS: Partial<Record<ClientId, HttpClientKind>> = {
  raw: rawHttp,
  conduit: conduitHttp,
  'conduit-baseline': conduitHttpBaseline,
  sdk1: sdk1Http,
  sdk2: sdk2Http('sdk2', 'legacy'),
  'sdk2-auto': sdk2Http('sdk2-auto', 'auto'),
};

export function httpClient(id: ClientId): HttpClientKind {
  const kind = HTTP_CLIENTS[id];
  if (!kind) throw new Error(`no HTTP bench client ${id}`);
  return kind;
}
