import type { EventEmitter } from 'node:events';
import type { TokenStore } from '../auth/token-store.js';
import type { Client, ClientEvents } from '../client/client.js';
import type { RequestOptions } from '../client/connection.js';
import type { ClientOptions } from '../client/options.js';
import type { ReadyEvent } from '../client/supervisor.js';
import type { ConfigTransport } from '../config/entry.js';
import { type LoadConfigOptions, loadConfigFile } from '../config/load.js';
import { NameCollisionError, ServerUnavailableError, UnknownNameError } from '../errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { CallToolResult, GetPromptResult, LogMessage, ReadResourceResult } from '../protocol/results.js';
import type { CloseReason } from '../transport/transport.js';
import { SafeEmitter } from '../user-code.js';
import { Limiter } from './limit.js';
import type { ListKind } from './list-cache.js';
import { PoolMember } from './member.js';
import { isRelayedEvent, type RelayedEvent } from './member-events.js';
import {
  findNamed,
  type Named,
  nameItems,
  type PoolPrompt,
  type PoolResource,
  type PoolResourceTemplate,
  type PoolTool,
  shown,
  templatePattern,
} from './namespace.js';
import {
  type ClientPoolOptions,
  defaultStartTimeout,
  type ResolvedPoolOptions,
  resolvePoolOptions,
  splitServerOptions,
  timerOption,
} from './options.js';
import type { ServerState, ServerStatus } from './server-status.js';

type WithServer<T> = { server: string } & T;

export interface ClientPoolEvents {
  serverReady: [event: WithServer<ReadyEvent>];
  serverError: [
    event: { server: string; error: Error; state: ServerState; nextAttemptAt: number | undefined },
  ];
  serverClosed: [event: { server: string; reason: CloseReason | undefined }];
  /** An HTTP server waits for the user's OAuth consent at `url` (its `onAuthorizationUrl` was called). */
  serverNeedsAuth: [event: { server: string; url: URL }];
  ready: [event: WithServer<ReadyEvent>];
  disconnected: [event: { server: string; reason: CloseReason }];
  reconnecting: [event: WithServer<ClientEvents['reconnecting'][0]>];
  closed: [event: { server: string; reason: CloseReason | undefined }];
  notification: [event: { server: string; notification: JsonRpcNotification }];
  log: [event: WithServer<LogMessage>];
  toolsListChanged: [event: { server: string }];
  resourcesListChanged: [event: { server: string }];
  promptsListChanged: [event: { server: string }];
  resourceUpdated: [event: { server: string; uri: string }];
}

/** Options of `ClientPool.fromConfigFile`: the pool's, the loader's, and Client options for every server. */
export interface FromConfigFileOptions extends Omit<ClientPoolOptions, 'servers'>, LoadConfigOptions {
  /** Client options given to every server of the file (reconnect, requestTimeout, handlers...). */
  readonly client?: Omit<ClientOptions, 'name' | 'transport'>;
  /** What a file cannot hold, for every HTTP entry with an `oauth` object. */
  readonly oauth?: ConfigOAuthHooks;
}

/** The host's part of OAuth for a config file's HTTP entries. */
export interface ConfigOAuthHooks {
  /** Shows the user the authorization URL for `server` (see OAuthOptions.onAuthorizationUrl). */
  readonly onAuthorizationUrl?: (
    url: URL,
    server: string,
  ) => Promise<string | URL | undefined> | Promise<void>;
  /**
   * Where tokens are kept for entries without their own `tokenStore` file: one store for all of
   * them, or a function giving each server its own (called with the server's name and URL).
   * @defaultValue one in-memory store per server
   */
  readonly store?: TokenStore | ((server: string, url: string) => TokenStore);
}

/** Where a pool name leads. */
export interface ResolvedName {
  readonly kind: 'tool' | 'prompt';
  readonly server: string;
  readonly originalName: string;
}

const DOWN: ReadonlySet<ServerState> = new Set([
  'reconnecting',
  'needs_auth',
  'failed',
  'disabled',
  'closed',
]);

/**
 * Many servers behind one object: started at once (a concurrency limit, a start timeout each), their
 * tools, prompts and resources merged under names every model API accepts, calls routed back, a
 * status per server, and one `close()` for all of them.
 */
export class ClientPool extends SafeEmitter<ClientPoolEvents> {
  /** Keys of the config file that no setting uses (ignored), each naming file, server and key. */
  readonly warnings: readonly string[];
  readonly #options: ResolvedPoolOptions;
  readonly #members: PoolMember[] = [];
  readonly #byName = new Map<string, PoolMember>();
  #closing: Promise<void> | undefined;
  /** connect() calls under way: while one is, ready servers wait for it to fetch their tools. */
  #connecting = 0;

  /** A pool from an `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code) file. */
  static fromConfigFile(file: string, options: FromConfigFileOptions = {}): ClientPool {
    const { env, input, workspaceFolder, client = {}, oauth, ...poolOptions } = options;
    const config = loadConfigFile(file, { env, input, workspaceFolder });
    const servers: ClientPoolOptions['servers'] = {};
    const entries = new Map(config.servers.map((entry) => [entry.name, entry]));
    const pool = new ClientPool(
      { ...poolOptions, servers },
      { entries, client, oauth, warnings: config.warnings },
    );
    return pool;
  }

  constructor(
    options: ClientPoolOptions,
    /** @internal fromConfigFile's entries */
    fromFile?: {
      entries: Map<string, import('../config/load.js').ConfigServer>;
      client: Omit<ClientOptions, 'name' | 'transport'>;
      oauth: ConfigOAuthHooks | undefined;
      warnings: readonly string[];
    },
  ) {
    super();
    this.#options = resolvePoolOptions(options);
    this.warnings = fromFile?.warnings ?? [];
    // Once no server is booting (none holds a start place or waits for one), the servers ready so
    // far are listed (see connect()).
    const limiter = new Limiter(this.#options.concurrency, () => {
      if (this.#connecting > 0) this.#listReady();
    });
    // SafeEmitter's rule: a listener that throws is re-thrown later, and the others still run.
    const emit = (event: string, payload: unknown) => {
      (this.emit as (event: string, payload: unknown) => boolean)(event, payload);
    };
    const relayed = new Set<RelayedEvent>();
    (this as EventEmitter).on('newListener', (event: string | symbol) => {
      if (!isRelayedEvent(event) || relayed.has(event)) return;
      relayed.add(event);
      for (const member of this.#members) member.relay(event);
    });
    const shared = { limiter, emit, relayed, starting: () => this.#connecting > 0 && limiter.busy };
    for (const [name, raw] of Object.entries(options.servers)) {
      const server = splitServerOptions(name, raw, this.#options);
      const transport = server.client.transport as { type?: string; url?: string } | undefined;
      const url = transport?.type === 'http' ? transport.url : undefined;
      this.#add(
        new PoolMember({
          shared,
          name,
          prepare: undefined,
          options: server.client,
          error: undefined,
          disabled: server.disabled,
          lazy: server.lazy,
          startTimeout: server.startTimeout,
          url,
        }),
      );
    }
    for (const entry of fromFile?.entries.values() ?? []) {
      const withTransport = (transport: ConfigTransport): ClientOptions =>
        ({
          ...fromFile!.client,
          name: entry.name,
          transport: withOAuthHooks(transport, entry.name, fromFile!.oauth),
        }) as unknown as ClientOptions;
      const known = entry.resolved;
      this.#add(
        new PoolMember({
          shared,
          name: entry.name,
          prepare: async () => withTransport(await entry.transport()),
          options: known ? withTransport(known) : undefined,
          error: entry.error,
          disabled: entry.disabled,
          lazy: this.#options.lazy,
          startTimeout: timerOption(
            defaultStartTimeout(this.#options, fromFile!.client.connectTimeout),
            'client.connectTimeout',
          ),
          url: known?.type === 'http' ? known.url : undefined,
        }),
      );
    }
  }

  #add(member: PoolMember): void {
    this.#members.push(member);
    this.#byName.set(member.name, member);
  }

  /** The server names, in config order. */
  get servers(): string[] {
    return this.#members.map((member) => member.name);
  }

  /**
   * Starts every enabled server that is not lazy, at most `concurrency` at once; resolves when each
   * is ready, has failed, or passed its `startTimeout`. Never rejects for a server: see `status()`.
   * While servers boot, a server that is ready is not listed yet (a server answering tools/list
   * takes CPU from the others' start): the lists of all the servers ready by then are fetched at
   * once when the last one has booted (its first message: no start place is held or waited for),
   * or at the latest as connect() resolves; a server ready after that is listed on its ready.
   * listTools() waits for them.
   */
  async connect(): Promise<void> {
    this.#connecting++;
    try {
      await Promise.all(this.#members.filter((member) => !member.lazy).map((member) => member.start()));
    } finally {
      this.#connecting--;
    }
    if (this.#connecting === 0) this.#listReady();
  }

  /** Fetches the tools list of every ready server that has none yet (or a stale one). */
  #listReady(): void {
    for (const member of this.#members) void member.fresh('tools');
  }

  /** That server's Client (starting it if lazy); undefined while none exists (disabled, config error, inputs pending). */
  get(server: string): Client | undefined {
    const member = this.#member(server);
    if (member.state === 'idle') void member.start();
    return member.client;
  }

  /**
   * Restarts one server: closes its Client (its process, or its HTTP session), and starts a new one
   * with a fresh reconnect budget and backoff, asking for OAuth consent again if it needs it.
   * Resolves like connect() does for that server (ready, failed, needs_auth or its startTimeout);
   * never rejects because of the server. Throws for a disabled server or a closed pool.
   */
  restart(server: string): Promise<void> {
    const member = this.#member(server);
    if (this.#closing !== undefined || member.state === 'disabled') {
      const why =
        member.state === 'disabled'
          ? 'the server is disabled in its config; drop "disabled": true and make the pool again'
          : 'the pool is closed, and a closed pool starts nothing again; make a new ClientPool';
      return Promise.reject(new ServerUnavailableError(member.name, member.state, `cannot restart: ${why}`));
    }
    return member.restart();
  }

  /** Each server's state, era, pid or URL, tool count, last error, next attempt and restart count. */
  status(): ServerStatus[] {
    return this.#members.map((member) => member.status());
  }

  /** The server and original name behind a pool tool or prompt name, from the lists known now. */
  resolve(name: string): ResolvedName | undefined {
    const tool = this.#tools().byName.get(name);
    if (tool) return { kind: 'tool', server: tool.item.server, originalName: tool.item.originalName };
    const prompt = this.#prompts().byName.get(name);
    if (prompt) return { kind: 'prompt', server: prompt.item.server, originalName: prompt.item.originalName };
    return undefined;
  }

  /** Every server's tools under pool names. Rejects with NameCollisionError if two end up with the same name. */
  async listTools(): Promise<{ tools: PoolTool[] }> {
    await this.#gather('tools');
    const named = this.#tools();
    if (named.collision) throw named.collision;
    return { tools: named.list };
  }

  async listPrompts(): Promise<{ prompts: PoolPrompt[] }> {
    await this.#gather('prompts');
    const named = this.#prompts();
    if (named.collision) throw named.collision;
    return { prompts: named.list };
  }

  /** Every server's resources, URIs unchanged, each with its `server`. */
  async listResources(): Promise<{ resources: PoolResource[] }> {
    await this.#gather('resources');
    return { resources: this.#plain('resources') };
  }

  async listResourceTemplates(): Promise<{ resourceTemplates: PoolResourceTemplate[] }> {
    await this.#gather('resourceTemplates');
    return { resourceTemplates: this.#plain('resourceTemplates') };
  }

  /** Calls a tool by its pool name. A server that is down rejects at once (ServerUnavailableError, its last error as cause). */
  async callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    const { member, originalName } = await this.#route('tool', params.name);
    return member.client!.callTool({ ...params, name: originalName }, options);
  }

  async getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const { member, originalName } = await this.#route('prompt', params.name);
    return member.client!.getPrompt({ ...params, name: originalName }, options);
  }

  /**
   * Reads a resource from the server that lists it (or whose template matches it); `server` picks
   * one when several could answer.
   */
  async readResource(
    params: { uri: string; server?: string },
    options?: RequestOptions,
  ): Promise<ReadResourceResult> {
    const { server, ...rest } = params;
    let member = server !== undefined ? this.#member(server) : this.#resourceOwner(params.uri);
    if (member === undefined) {
      await Promise.all([this.#gather('resources'), this.#gather('resourceTemplates')]);
      member = this.#resourceOwner(params.uri);
    }
    if (member === undefined) {
      throw new UnknownNameError(
        'resource',
        params.uri,
        `no pool server lists the resource ${params.uri} or a template that matches it; pass { uri, server } to pick one`,
      );
    }
    await this.#usable(member, `resources/read ${params.uri}`);
    return member.client!.readResource(rest, options);
  }

  /** Closes every server at once (each escalates to its process group on its own schedule). */
  close(): Promise<void> {
    this.#closing ??= Promise.all(this.#members.map((member) => member.close())).then(() => {});
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #member(server: string): PoolMember {
    const member = this.#byName.get(server);
    if (member) return member;
    throw new UnknownNameError(
      'server',
      server,
      `the pool has no server ${JSON.stringify(server)}; it has ${this.servers.join(', ') || 'none'}`,
    );
  }

  #tools(): Named<PoolTool> {
    return nameItems(
      this.#members,
      (m) => m.items('tools'),
      this.#options.names,
      this.#options.dropUnavailable,
      'tool',
    ) as Named<PoolTool>;
  }

  #prompts(): Named<PoolPrompt> {
    return nameItems(
      this.#members,
      (m) => m.items('prompts'),
      this.#options.names,
      this.#options.dropUnavailable,
      'prompt',
    ) as Named<PoolPrompt>;
  }

  #plain<K extends 'resources' | 'resourceTemplates'>(kind: K) {
    return this.#members
      .filter((member) => shown(member, this.#options.dropUnavailable))
      .flatMap((member) =>
        (member.items(kind) ?? []).map((item) => ({
          ...item,
          server: member.name,
          available: member.state === 'ready',
        })),
      ) as unknown as K extends 'resources' ? PoolResource[] : PoolResourceTemplate[];
  }

  /** Starts lazy servers, waits for those starting, and refreshes the list on every ready one. */
  async #gather(kind: ListKind): Promise<void> {
    await Promise.all(this.#members.map((member) => member.start()));
    await Promise.all(this.#members.map((member) => member.fresh(kind)));
  }

  async #route(kind: 'tool' | 'prompt', name: string): Promise<{ member: PoolMember; originalName: string }> {
    const list = kind === 'tool' ? 'tools' : 'prompts';
    const lookup = () =>
      findNamed(
        this.#members,
        (m) => m.items(list),
        this.#options.names,
        this.#options.dropUnavailable,
        kind,
        name,
      );
    let found = lookup();
    if (found === undefined) {
      // The ready servers' lists first (during connect() none is fetched yet), without waiting for
      // the servers still starting: a hung one would hold the call for its whole startTimeout.
      await Promise.all(this.#members.map((member) => member.fresh(list)));
      found = lookup();
    }
    if (found === undefined) {
      await this.#gather(list);
      found = lookup();
    }
    if (found instanceof NameCollisionError) throw found;
    if (!found) {
      const known = (kind === 'tool' ? this.#tools() : this.#prompts()).list.map((item) => item.name);
      throw new UnknownNameError(
        kind,
        name,
        `no pool server has a ${kind} named ${JSON.stringify(name)}; the pool's ${kind}s are ${known.slice(0, 20).join(', ') || 'none'}${known.length > 20 ? ', ...' : ''}${this.#unknownLists(kind)}`,
      );
    }
    await this.#usable(found.member, `${kind === 'tool' ? 'tools/call' : 'prompts/get'} ${name}`);
    return found;
  }

  /** The servers down without a known list, whose names cannot be routed yet (and why). */
  #unknownLists(kind: 'tool' | 'prompt'): string {
    const list = kind === 'tool' ? 'tools' : 'prompts';
    const down = this.#members.filter((m) => DOWN.has(m.state) && m.items(list) === undefined);
    if (down.length === 0) return '';
    const why = (m: PoolMember) => `${m.name} (${m.state}${m.error ? `: ${m.error.message}` : ''})`;
    return `; not known yet from the servers that are down: ${down.map(why).join(', ')}`;
  }

  async #usable(member: PoolMember, what: string): Promise<void> {
    if (member.state === 'idle') await member.start();
    if (!DOWN.has(member.state) && member.client) return;
    const { state, error, nextAttemptAt } = member.status();
    const next =
      nextAttemptAt !== undefined ? ` (next attempt in ${Math.max(0, nextAttemptAt - Date.now())} ms)` : '';
    const why =
      state === 'disabled'
        ? 'the server is disabled in its config'
        : state === 'closed'
          ? 'the pool is closed'
          : `the server is ${state.replace('_', ' ')}${next}${error ? `; last error: ${error.message}` : ''}`;
    throw new ServerUnavailableError(
      member.name,
      state,
      `${what} is unavailable: ${why}`,
      error ? { cause: error } : undefined,
    );
  }

  #resourceOwner(uri: string): PoolMember | undefined {
    const owners = this.#members.filter((member) => member.items('resources')?.some((r) => r.uri === uri));
    if (owners.length > 0) return owners[0];
    return this.#members.find((member) =>
      member.items('resourceTemplates')?.some((t) => templatePattern(t.uriTemplate).test(uri)),
    );
  }
}

/** An HTTP entry's OAuth options with the host's callback (told which server asks) and store. */
function withOAuthHooks(
  transport: ConfigTransport,
  server: string,
  hooks: ConfigOAuthHooks | undefined,
): ConfigTransport {
  if (transport.type !== 'http' || transport.auth === undefined || hooks === undefined) return transport;
  const { onAuthorizationUrl } = hooks;
  // A tokenStore file of the entry's own wins; a function is not asked for a store it would lose to.
  const given = hooks.store;
  const store =
    transport.auth.store !== undefined
      ? undefined
      : typeof given === 'function'
        ? given(server, transport.url)
        : given;
  return {
    ...transport,
    auth: {
      ...(store ? { store } : {}),
      ...transport.auth,
      ...(onAuthorizationUrl ? { onAuthorizationUrl: (url: URL) => onAuthorizationUrl(url, server) } : {}),
    },
  };
}
