import type { ClientPool, PoolPrompt, PoolResource, PoolResourceTemplate, PoolTool } from '../index.js';
import type { ToolFilter } from './filters.js';

/** A merged list as the host gets it, and its items by name (tools, prompts) or URI (resources). */
export interface MergedList<T> {
  /** The list, the pool's own fields dropped, ready to send. */
  readonly declared: readonly Record<string, unknown>[];
  /** Each item by its pool name or URI. */
  readonly byKey: ReadonlyMap<string, T>;
}

type Kinds = {
  tools: PoolTool;
  prompts: PoolPrompt;
  resources: PoolResource;
  resourceTemplates: PoolResourceTemplate;
};
type Kind = keyof Kinds;

/** What each list's items are found by. */
const KEY: Record<Kind, string> = {
  tools: 'name',
  prompts: 'name',
  resources: 'uri',
  resourceTemplates: 'uriTemplate',
};

/** The pool's own fields, which the host does not see: it sees each item as its server declared it, renamed. */
function asDeclared(item: object): Record<string, unknown> {
  const {
    server: _server,
    available: _available,
    originalName: _originalName,
    ...declared
  } = item as Record<string, unknown>;
  return declared;
}

/**
 * The merged lists the host sees, built once and kept until a server's list changes or a server
 * changes state (ready, down, restarted, closed): a call is then routed by one lookup instead of
 * merging and filtering every list again.
 */
export class GatewayLists {
  readonly #pool: ClientPool;
  readonly #filter: ToolFilter;
  readonly #built: { [K in Kind]?: Promise<MergedList<Kinds[K]>> } = {};

  /** Listens to `pool` for what makes a list stale. */
  constructor(pool: ClientPool, filter: ToolFilter) {
    this.#pool = pool;
    this.#filter = filter;
    pool.on('toolsListChanged', () => this.#forget('tools'));
    pool.on('promptsListChanged', () => this.#forget('prompts'));
    pool.on('resourcesListChanged', () => this.#forget('resources', 'resourceTemplates'));
    const all = () => this.#forget('tools', 'prompts', 'resources', 'resourceTemplates');
    for (const event of ['serverReady', 'serverError', 'serverClosed', 'disconnected'] as const) {
      pool.on(event, all);
    }
  }

  /** The list of `kind`, from the cache or merged now (tools: those the filters let through). */
  get<K extends Kind>(kind: K): Promise<MergedList<Kinds[K]>> {
    const cached = this.#built[kind];
    if (cached !== undefined) return cached;
    const building = this.#merge(kind);
    this.#built[kind] = building as never;
    building.catch(() => {
      if (this.#built[kind] === (building as never)) delete this.#built[kind];
    });
    return building;
  }

  /**
   * The item of that name or URI; when the cached list has none, the list is merged once more
   * first (a server may have changed it without telling).
   */
  async find<K extends Kind>(kind: K, key: string): Promise<Kinds[K] | undefined> {
    const found = (await this.get(kind)).byKey.get(key);
    if (found !== undefined) return found;
    this.#forget(kind);
    return (await this.get(kind)).byKey.get(key);
  }

  #forget(...kinds: Kind[]): void {
    for (const kind of kinds) delete this.#built[kind];
  }

  async #merge<K extends Kind>(kind: K): Promise<MergedList<Kinds[K]>> {
    const items = (await this.#items(kind)) as Kinds[K][];
    const byKey = new Map<string, Kinds[K]>();
    for (const item of items) {
      const key = (item as Record<string, unknown>)[KEY[kind]];
      if (typeof key === 'string' && !byKey.has(key)) byKey.set(key, item);
    }
    return { declared: items.map(asDeclared), byKey };
  }

  async #items(kind: Kind): Promise<readonly object[]> {
    switch (kind) {
      case 'tools':
        return (await this.#pool.listTools()).tools.filter((tool) => this.#filter.passes(tool));
      case 'prompts':
        return (await this.#pool.listPrompts()).prompts;
      case 'resources':
        return (await this.#pool.listResources()).resources;
      case 'resourceTemplates':
        return (await this.#pool.listResourceTemplates()).resourceTemplates;
    }
  }
}
