/** Modern results that carry `ttlMs`/`cacheScope` and may be served from a cache. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);
