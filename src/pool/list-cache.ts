import type { Client } from '../client/client.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/results.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
export type ListItems = {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
};

/** Where a cache's lists come from, and who hears of each fetched list. */
export interface ListOwner {
  readonly client: Client | undefined;
  listed(kind: ListKind, items: unknown[]): void;
}

interface List {
  items: unknown[] | undefined;
  stale: boolean;
  fetching: Promise<void> | undefined;
  again: boolean;
}

/** The server capability each list needs; a server without it has an empty list. */
const CAPABILITY: Record<ListKind, string> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resources',
};

/**
 * A pool member's last known lists, kept while its server is down. A list is fetched again once a
 * change notification or a new connection has made it stale; one fetch at a time per list, and a
 * change during a fetch runs one more.
 */
export class ListCache {
  readonly #owner: ListOwner;
  readonly #lists: { [K in ListKind]?: List } = {};

  /** `owner.client`: the Client lists are fetched from, read at each fetch; `owner.listed` hears each list. */
  constructor(owner: ListOwner) {
    this.#owner = owner;
  }

  /** Last known items of a list, or undefined before the first. */
  items<K extends ListKind>(kind: K): ListItems[K][] | undefined {
    return this.#lists[kind]?.items as ListItems[K][] | undefined;
  }

  /** Every list fetched so far is fetched again on its next use (after a new connection). */
  markStale(): void {
    for (const list of Object.values(this.#lists)) list.stale = true;
  }

  /** Fetches a list again if it changed or was never fetched; keeps the last known one on failure. */
  async fresh(kind: ListKind): Promise<void> {
    const list = this.#lists[kind];
    // A fetch under way gives the fresh list (one changed again during it fetches once more before
    // it settles): wait for it, never answer with the items it is replacing.
    if (list?.fetching) return list.fetching;
    if (list && !list.stale && list.items) return;
    await this.refresh(kind);
  }

  /** Fetches a list now, or once more after the fetch under way. */
  refresh(kind: ListKind): Promise<void> {
    this.#lists[kind] ??= { items: undefined, stale: true, fetching: undefined, again: false };
    const list = this.#lists[kind];
    if (list.fetching) {
      list.again = true;
      return list.fetching;
    }
    list.fetching = (async () => {
      do {
        list.again = false;
        list.stale = false;
        try {
          list.items = await this.#fetch(kind);
          this.#owner.listed(kind, list.items);
        } catch {
          list.stale = true; // the next list tries again; the server's own error shows in status()
          break;
        }
      } while (list.again);
      list.fetching = undefined;
    })();
    return list.fetching;
  }

  /** The server said a list changed: stale, and the tools list is fetched again at once. */
  changed(kind: ListKind): void {
    const list = this.#lists[kind];
    if (list === undefined) return;
    list.stale = true;
    if (list.fetching) list.again = true;
    else if (kind === 'tools') void this.refresh(kind);
  }

  async #fetch(kind: ListKind): Promise<unknown[]> {
    const client = this.#owner.client;
    if (client === undefined || client.state !== 'ready') throw new Error('not ready');
    if (!client.serverCapabilities?.[CAPABILITY[kind]]) return [];
    switch (kind) {
      case 'tools':
        return (await client.listTools()).tools;
      case 'prompts':
        return (await client.listPrompts()).prompts;
      case 'resources':
        return (await client.listResources()).resources;
      case 'resourceTemplates':
        return (await client.listResourceTemplates()).resourceTemplates;
    }
  }
}
