import type { EventEmitter } from 'node:events';
import type { Client } from '../client/client.js';
import type { RequestOptions } from '../client/connection.js';
import { loadConfigFile } from '../config/load.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../protocol/results.js';
import { SafeEmitter } from '../user-code.js';
import { PoolCatalog } from './catalog.js';
import { configMemberSetup, type FromConfigFileOptions } from './config-file.js';
import { ServerUnavailableError, UnknownNameError } from './errors.js';
import type { ClientPoolEvents, ResolvedName } from './events.js';
import { Limiter } from './limit.js';
import { type MemberShared, PoolMember } from './member.js';
import { isRelayedEvent, type RelayedEvent } from './member-events.js';
import {
  type Named,
  nameItems,
  type PoolPrompt,
  type PoolResource,
  type PoolResourceTemplate,
  type PoolTool,
  shown,
} from './namespace.js';
import {
  type ClientPoolOptions,
  type ResolvedPoolOptions,
  resolvePoolOptions,
  splitServerOptions,
} from './options.js';
import type { ToolTrust } from './pins.js';
import { ensureUsable, gatherList, resourceOwner, routeName } from './routing.js';
import type { ToolSearchMatch } from './search.js';
import type { ServerStatus } from './server-status.js';
import { poolStateFile } from './state-files.js';

/**
 * Many servers behind one object: started at once (a concurrency limit, a start timeout each), their
 * tools, prompts and resources merged under names every model API accepts, calls routed back, a
 * status per server, and one `close()` for all of them.
 *
 * It is a Node `EventEmitter` of {@link ClientPoolEvents} (`pool.on('serverError', ...)`); a
 * listener that throws does not stop the others, and its error is thrown again on a later turn of the event loop.
 */
export class ClientPool extends SafeEmitter<ClientPoolEvents> {
  readonly #options: ResolvedPoolOptions;
  readonly #shared: MemberShared;
  readonly #members: PoolMember[] = [];
  readonly #byName = new Map<string, PoolMember>();
  #warnings: readonly string[] = [];
  #closing: Promise<void> | undefined;
  /** connect() calls under way: while one is, ready servers wait for it to fetch their tools. */
  #connecting = 0;
  readonly #catalog: PoolCatalog;

  /**
   * A pool from an `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code) file.
   * The file is read and checked now; servers start in `connect()`.
   * @throws {@link ConfigError} when the file cannot be read or parsed, or the pool's options are invalid.
   */
  static fromConfigFile(file: string, options: FromConfigFileOptions = {}): ClientPool {
    const { env, input, workspaceFolder, client = {}, oauth, manifest, pinning, ...poolOptions } = options;
    const config = loadConfigFile(file, { env, input, workspaceFolder });
    const pool = new ClientPool({
      ...poolOptions,
      manifest: manifest ?? poolStateFile(config.file, 'manifest'),
      ...(pinning && { pinning: { file: poolStateFile(config.file, 'pins'), ...pinning } }),
      servers: {},
    });
    pool.#warnings = config.warnings;
    for (const entry of config.servers) {
      pool.#add(new PoolMember(configMemberSetup(entry, pool.#shared, pool.#options, client, oauth)));
    }
    return pool;
  }

  /**
   * Checks the options and starts nothing; `connect()` starts the servers. A server whose Client
   * options are invalid is not thrown for: it carries the ConfigError as its `error` in `status()`.
   * @throws {@link ConfigError} when a pool option, or a server's `disabled`, `lazy` or `startTimeout`,
   * is invalid; `key` names it (e.g. `servers.github.lazy`).
   */
  constructor(options: ClientPoolOptions) {
    super();
    this.#options = resolvePoolOptions(options);
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
    this.#catalog = new PoolCatalog(this.#members, this.#options, (event) => emit('toolsChanged', event));
    this.#shared = {
      limiter,
      emit,
      relayed,
      starting: () => this.#connecting > 0 && limiter.busy,
      toolsListed: (server, tools) => this.#catalog.listed(server, tools),
    };
    for (const [name, raw] of Object.entries(options.servers)) {
      const server = splitServerOptions(name, raw, this.#options);
      const transport = server.client.transport as { type?: string; url?: string } | undefined;
      this.#add(
        new PoolMember({
          shared: this.#shared,
          name,
          prepare: undefined,
          options: server.client,
          error: undefined,
          disabled: server.disabled,
          lazy: server.lazy,
          startTimeout: server.startTimeout,
          url: transport?.type === 'http' ? transport.url : undefined,
        }),
      );
    }
  }

  #add(member: PoolMember): void {
    this.#members.push(member);
    this.#byName.set(member.name, member);
  }

  /** Keys of the config file that no setting uses (ignored), each naming file, server and key. */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** The file where the pool keeps each server's last tools list (see the `manifest` option), if any. */
  get manifestFile(): string | undefined {
    return this.#catalog.manifest?.file;
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

  /**
   * That server's Client (starting it if lazy); undefined while none exists (disabled, config error, inputs pending).
   * @throws {@link UnknownNameError} when the pool has no server of that name.
   */
  get(server: string): Client | undefined {
    const member = this.#member(server);
    if (member.state === 'idle') void member.start();
    return member.client;
  }

  /**
   * Restarts one server: closes its Client (its process, or its HTTP session), and starts a new one
   * with a fresh reconnect budget and backoff, asking for OAuth consent again if it needs it.
   * Resolves like connect() does for that server (ready, failed, needs_auth or its startTimeout);
   * never rejects because of the server. Rejects for an unknown name, a disabled server or a closed pool.
   * @throws {@link UnknownNameError} (rejects) when the pool has no server of that name.
   * @throws {@link ServerUnavailableError} (rejects) when the server is disabled or the pool is closed.
   */
  async restart(server: string): Promise<void> {
    const member = this.#member(server);
    if (this.#closing !== undefined || member.state === 'disabled') {
      const why =
        member.state === 'disabled'
          ? 'the server is disabled in its config; drop "disabled": true and make the pool again'
          : 'the pool is closed, and a closed pool starts nothing again; make a new ClientPool';
      throw new ServerUnavailableError(member.name, member.state, `cannot restart: ${why}`);
    }
    return member.restart();
  }

  /** Each server's state, era, pid or URL, tool count, last error, next attempt and restart count. */
  status(): ServerStatus[] {
    return this.#members.map((member) => member.status());
  }

  /** The server and original name behind a pool tool or prompt name, from the lists known now. */
  resolve(name: string): ResolvedName | undefined {
    const tool = this.#named('tools').byName.get(name);
    if (tool) return { kind: 'tool', server: tool.item.server, originalName: tool.item.originalName };
    const prompt = this.#named('prompts').byName.get(name);
    if (prompt) return { kind: 'prompt', server: prompt.item.server, originalName: prompt.item.originalName };
    return undefined;
  }

  /**
   * Every server's tools under pool names. Rejects with NameCollisionError if two end up with the same name.
   * @throws {@link NameCollisionError} (rejects) when two tools end up with the same pool name.
   */
  async listTools(): Promise<{
    /** The tools of every shown server, under pool names. */ tools: PoolTool[];
  }> {
    await gatherList(this.#members, 'tools');
    await this.#catalog.checked();
    const named = this.#named('tools');
    if (named.collision) throw named.collision;
    return { tools: named.list };
  }

  /**
   * The tools that best match `query` (BM25F over name, title, description and argument names;
   * see {@link buildToolIndex}), best first, at most `limit` (default 10), across every enabled
   * server: started ones from their live lists (non-lazy ones are started, as connect() does),
   * lazy ones not started yet from the manifest of an earlier run. Their `callTool` starts only
   * the server that has the tool.
   * @throws `TypeError` (rejects) when `query` is not a string; `RangeError` when `limit` is not a positive integer.
   */
  async searchTools(
    query: string,
    options: { /** Most matches. @defaultValue 10 */ limit?: number } = {},
  ): Promise<ToolSearchMatch[]> {
    if (typeof query !== 'string')
      throw new TypeError(`searchTools needs a query string, got ${typeof query}`);
    const limit = options.limit ?? 10;
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${String(limit)}`);
    return this.#catalog.search(query, limit);
  }

  /**
   * With `pinning`: where a tool stands, `'trusted'` (callable), `'blocked'` (until
   * {@link ClientPool.resetPins}) or `'awaiting_approval'` (until {@link ClientPool.approveTool}).
   * Always `'trusted'` without pinning or for a name the pool does not know.
   */
  toolTrust(name: string): ToolTrust {
    return this.#catalog.trust(name);
  }

  /** With `pinning: { policy: 'reapprove' }`: trusts a changed tool as it is now. False when it was not awaiting approval. */
  approveTool(name: string): Promise<boolean> {
    return this.#catalog.approve(name);
  }

  /** Forgets the pins of `server` (default: every server); the tools listed next are pinned anew. */
  async resetPins(server?: string): Promise<void> {
    await this.#catalog.pins?.reset(server);
  }

  /**
   * Every server's prompts under pool names (the same naming as tools).
   * @throws {@link NameCollisionError} (rejects) when two prompts end up with the same pool name.
   */
  async listPrompts(): Promise<{
    /** The prompts of every shown server, under pool names. */ prompts: PoolPrompt[];
  }> {
    await gatherList(this.#members, 'prompts');
    const named = this.#named('prompts');
    if (named.collision) throw named.collision;
    return { prompts: named.list };
  }

  /** Every server's resources, URIs unchanged, each with its `server`. */
  async listResources(): Promise<{
    /** The resources of every shown server. */ resources: PoolResource[];
  }> {
    await gatherList(this.#members, 'resources');
    return { resources: this.#plain('resources') };
  }

  /** Every server's resource templates, unchanged, each with its `server`. */
  async listResourceTemplates(): Promise<{
    /** The templates of every shown server. */ resourceTemplates: PoolResourceTemplate[];
  }> {
    await gatherList(this.#members, 'resourceTemplates');
    return { resourceTemplates: this.#plain('resourceTemplates') };
  }

  /**
   * Calls a tool by its pool name. A server that is down rejects at once (ServerUnavailableError, its last error as cause).
   * Besides the errors below, rejects as {@link Client.callTool} does.
   * @throws {@link UnknownNameError} (rejects) when no server has a tool of that pool name.
   * @throws {@link ServerUnavailableError} (rejects) when its server is not ready.
   * @throws {@link NameCollisionError} (rejects) when the name stands for two servers' tools.
   */
  async callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<CallToolResult> {
    await this.#catalog.beforeCall(params.name);
    const { member, originalName } = await routeName(this.#members, this.#options, 'tool', params.name);
    return member.client!.callTool({ ...params, name: originalName }, options);
  }

  /**
   * Gets a prompt by its pool name, from the server that has it.
   * Besides the errors below, rejects as {@link Client.getPrompt} does.
   * @throws {@link UnknownNameError} (rejects) when no server has a prompt of that pool name.
   * @throws {@link ServerUnavailableError} (rejects) when its server is not ready.
   * @throws {@link NameCollisionError} (rejects) when the name stands for two servers' prompts.
   */
  async getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const { member, originalName } = await routeName(this.#members, this.#options, 'prompt', params.name);
    return member.client!.getPrompt({ ...params, name: originalName }, options);
  }

  /**
   * Reads a resource from the server that lists it (or whose template matches it); `server` picks
   * one when several could answer.
   * Besides the errors below, rejects as {@link Client.readResource} does.
   * @throws {@link UnknownNameError} (rejects) when no server lists the URI or a matching template, or `server` names none.
   * @throws {@link ServerUnavailableError} (rejects) when that server is not ready.
   */
  async readResource(
    params: { uri: string; server?: string },
    options?: RequestOptions,
  ): Promise<ReadResourceResult> {
    const { server, ...rest } = params;
    let member = server !== undefined ? this.#member(server) : resourceOwner(this.#members, params.uri);
    if (member === undefined) {
      await Promise.all([
        gatherList(this.#members, 'resources'),
        gatherList(this.#members, 'resourceTemplates'),
      ]);
      member = resourceOwner(this.#members, params.uri);
    }
    if (member === undefined) {
      throw new UnknownNameError(
        'resource',
        params.uri,
        `no pool server lists the resource ${params.uri} or a template that matches it; pass { uri, server } to pick one`,
      );
    }
    await ensureUsable(member, `resources/read ${params.uri}`);
    return member.client!.readResource(rest, options);
  }

  /** Closes every server at once (each escalates to its process group on its own schedule). */
  close(): Promise<void> {
    this.#closing ??= Promise.all([
      ...this.#members.map((member) => member.close()),
      this.#catalog.flushed(),
    ]).then(() => {});
    return this.#closing;
  }

  /** `await using pool = new ClientPool(...)` calls it: the same as `close()`. */
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

  #named<K extends 'tools' | 'prompts'>(kind: K) {
    return nameItems(this.#members, this.#options, kind === 'tools' ? 'tool' : 'prompt') as Named<
      K extends 'tools' ? PoolTool : PoolPrompt
    >;
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
}
