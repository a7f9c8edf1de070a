import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ClientHandlers, ClientPool, HandlerContext } from '../index.js';
import type { ToolFilter } from './filters.js';
import { type Asker, InputRounds } from './input-rounds.js';
import { GatewayLists } from './lists.js';

/** The list kinds whose change the host is told about. */
export type ListKind = 'tools' | 'prompts' | 'resources';

/** What the gateway needs besides its pool. */
export interface GatewaySettings {
  /** The serverInfo the host sees. */
  readonly info: { readonly name: string; readonly version: string };
  /** The tools the host may see and call. */
  readonly filter: ToolFilter;
  /** ms a forwarded request may wait without progress (each progress notification restarts it). */
  readonly requestTimeout: number;
  /** ms a forwarded request may take in all, progress or not; undefined: 10 x requestTimeout. */
  readonly maxTime: number | undefined;
  /**
   * The one server behind the gateway, under its own names (`serve -- <cmd>` or `serve <url>`):
   * a tool, prompt or resource no list names goes to it as it is, for it to answer.
   */
  readonly soleServer?: string;
}

/**
 * The pool on one side, the hosts that connected on the other: which host sessions are live (to
 * tell them of list changes and log messages), and which host request is under way on each
 * server (to forward that server's own requests to the host that caused them).
 */
export class Gateway {
  readonly pool: ClientPool;
  readonly settings: GatewaySettings;
  /** The merged lists the hosts see, kept until they change. */
  readonly lists: GatewayLists;
  /** Modern hosts' requests suspended while they answer what a server behind asked. */
  readonly rounds: InputRounds;
  readonly #hosts = new Set<Server>();
  readonly #calls = new Map<string, Asker[]>();
  readonly #listChanged = new Set<(kind: ListKind) => void>();

  /** `makePool` gets the handlers that forward the servers' own requests to the host. */
  constructor(makePool: (handlers: ClientHandlers) => ClientPool, settings: GatewaySettings) {
    this.settings = settings;
    this.rounds = new InputRounds(settings.maxTime ?? settings.requestTimeout * 10);
    this.pool = makePool(this.#handlers());
    // Before the listeners below: a host told of a change lists again from a list already forgotten.
    this.lists = new GatewayLists(this.pool, settings.filter);
    this.pool.on('toolsListChanged', () => this.#changed('tools'));
    this.pool.on('promptsListChanged', () => this.#changed('prompts'));
    this.pool.on('resourcesListChanged', () => this.#changed('resources'));
    // A server (re)started may have other lists than before: the hosts list again.
    this.pool.on('serverReady', () => {
      for (const kind of ['tools', 'prompts', 'resources'] as const) this.#changed(kind);
    });
    this.pool.on('log', ({ server, level, logger, data }) => {
      for (const host of this.#hosts) {
        host.sendLoggingMessage({ level, logger: logger ?? server, data }).catch(() => {});
      }
    });
    this.pool.on('resourceUpdated', ({ uri }) => {
      for (const host of this.#hosts) host.sendResourceUpdated({ uri }).catch(() => {});
    });
  }

  /** Calls `listener` on every list change of any server (HTTP hands it to its listen streams). */
  onListChanged(listener: (kind: ListKind) => void): void {
    this.#listChanged.add(listener);
  }

  /** A host session to notify until it closes. */
  addHost(host: Server): void {
    this.#hosts.add(host);
    const previous = host.onclose;
    host.onclose = () => {
      this.#hosts.delete(host);
      previous?.();
    };
  }

  /** Runs `work` as the host request under way on `server`: its requests to the client go to `asker`. */
  async during<T>(server: string, asker: Asker, work: () => Promise<T>): Promise<T> {
    const list = this.#calls.get(server) ?? [];
    list.push(asker);
    this.#calls.set(server, list);
    try {
      return await work();
    } finally {
      list.splice(list.indexOf(asker), 1);
      if (list.length === 0) this.#calls.delete(server);
    }
  }

  /** A legacy-era host request's asker: the servers' requests go to the host as requests of its own. */
  legacyAsker(ctx: ServerContext): Asker {
    return {
      capabilities: undefined,
      ask: ({ method, params }, signal) =>
        ctx.mcpReq.send({ method, params } as never, { signal, timeout: this.settings.requestTimeout }),
    };
  }

  #changed(kind: ListKind): void {
    for (const listener of this.#listChanged) listener(kind);
    for (const host of this.#hosts) {
      const sent =
        kind === 'tools'
          ? host.sendToolListChanged()
          : kind === 'prompts'
            ? host.sendPromptListChanged()
            : host.sendResourceListChanged();
      sent.catch(() => {});
    }
  }

  /**
   * The servers' requests to the client, sent on to the host: through the host request under way
   * on that server (the newest), else to a live host session. A host that does not declare the
   * capability, or cannot be asked in its era, gets nothing: the server gets an error naming why.
   */
  #handlers(): ClientHandlers {
    const forward =
      (method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list', capability: string) =>
      async (params: Record<string, unknown>, context: HandlerContext): Promise<unknown> => {
        const call = this.#calls.get(context.server)?.at(-1);
        if (call !== undefined) {
          if (call.capabilities !== undefined && !(capability in call.capabilities)) {
            if (method === 'roots/list') return { roots: [] };
            throw new Error(`the host connected to the gateway does not support ${capability}`);
          }
          return call.ask({ method, params }, context.signal);
        }
        const host = [...this.#hosts].at(-1);
        const capabilities = host?.getClientCapabilities();
        if (host === undefined || capabilities === undefined) {
          if (method === 'roots/list') return { roots: [] };
          throw new Error(`no host is connected to the gateway to answer ${method} for ${context.server}`);
        }
        if (!(capability in capabilities)) {
          if (method === 'roots/list') return { roots: [] };
          throw new Error(`the host connected to the gateway does not support ${capability}`);
        }
        return host.request({ method, params } as never, {
          signal: context.signal,
          timeout: this.settings.requestTimeout,
        });
      };
    return {
      elicitation: forward('elicitation/create', 'elicitation'),
      sampling: forward('sampling/createMessage', 'sampling'),
      roots: forward('roots/list', 'roots'),
    };
  }
}
