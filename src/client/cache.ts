import type { JsonObject } from '../jsonrpc/messages.js';
import { CACHEABLE_METHODS } from '../protocol/cacheable.js';

/** Entries kept at most; the oldest goes first. */
export const MAX_CACHE_ENTRIES = 1000;

/** How long a result stays fresh: absent, negative or invalid `ttlMs` means 0 (stale at once). */
export function freshFor(result: unknown): number {
  const ttl = (result as { ttlMs?: unknown } | null)?.ttlMs;
  return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
}

/** The cache key: the method and every parameter but `_meta` (which does not change the result). */
export function cacheKey(method: string, params: JsonObject | undefined): string {
  if (!params) return method;
  const { _meta: _ignored, ...rest } = params;
  return `${method} ${JSON.stringify(rest)}`;
}

interface Entry {
  result: unknown;
  expires: number;
  method: string;
  uri: string | undefined;
}

/**
 * Modern list and read results, each page on its own TTL clock. Never answers a request whose
 * method or parameters differ. The client holds one per server configuration (one authorization
 * context), so `private` and `public` entries are both kept.
 */
export class ResultCache {
  /** Made on the first entry: most clients never cache anything. */
  #entries: Map<string, Entry> | undefined;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get size(): number {
    return this.#entries?.size ?? 0;
  }

  get(method: string, params: JsonObject | undefined): unknown {
    const key = cacheKey(method, params);
    const entry = this.#entries?.get(key);
    if (!entry) return undefined;
    if (this.#now() < entry.expires) return entry.result;
    this.#entries?.delete(key);
    return undefined;
  }

  set(method: string, params: JsonObject | undefined, result: unknown): void {
    const ttl = freshFor(result);
    if (ttl === 0 || !CACHEABLE_METHODS.has(method)) return;
    const key = cacheKey(method, params);
    this.#entries ??= new Map();
    const entries = this.#entries;
    entries.delete(key);
    if (entries.size >= MAX_CACHE_ENTRIES) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    const uri = typeof params?.uri === 'string' ? params.uri : undefined;
    entries.set(key, { result, expires: this.#now() + ttl, method, uri });
  }

  /** Drops every entry of these methods (a list_changed notification). */
  invalidate(...methods: string[]): void {
    const entries = this.#entries;
    if (entries) for (const [key, entry] of entries) if (methods.includes(entry.method)) entries.delete(key);
  }

  /** Drops the reads of a resource (a resources/updated notification). */
  invalidateUri(uri: string): void {
    const entries = this.#entries;
    if (entries) for (const [key, entry] of entries) if (entry.uri === uri) entries.delete(key);
  }

  clear(): void {
    this.#entries = undefined;
  }
}
