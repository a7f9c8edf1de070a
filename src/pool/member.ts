import { attributeTo } from '../attribution.js';
import { isOAuthOptions } from '../auth/options.js';
import { MemoryTokenStore } from '../auth/token-store.js';
import { Client } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import type { ReadyEvent, ReconnectingEvent } from '../client/supervisor.js';
import { ClientClosedError, ConnectionClosedError, isConduitError, StartTimeoutError } from '../errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { LogMessage, Prompt, Resource, ResourceTemplate, Tool } from '../protocol/results.js';
import type { Era } from '../protocol/versions.js';
import type { CloseReason } from '../transport/transport.js';
import { rethrowLater } from '../user-code.js';
import type { Limiter } from './limit.js';

/** The member behind each Client, for the listeners every member shares. */
const owners = new WeakMap<Client, PoolMember>();

/** The Client events a member takes from PooledClient's emit rather than through a listener. */
const LIFECYCLE = { ready: true, disconnected: true, reconnecting: true, closed: true } as const;
/** Set by PoolMember: hands a lifecycle event to the Client's member, before its listeners run. */
let toMember: (client: Client, event: keyof typeof LIFECYCLE, args: unknown[]) => void;

/**
 * A pool member's Client. Its member learns of `ready`, `disconnected`, `reconnecting` and `closed`
 * as they are emitted, ahead of every listener, with no listener of its own: a Client's listener
 * table is a hash table that doubles past 5 events, and with the member's four it held nine
 * (448 bytes instead of 256 per server). The list events stay listeners: the Client asks a modern
 * server for change notifications only while someone listens.
 */
class PooledClient extends Client {
  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own signature, passed through as is
  override emit(event: any, ...args: any[]): boolean {
    if (Object.hasOwn(LIFECYCLE, event)) {
      try {
        toMember(this, event, args);
      } catch (error) {
        // As a listener's would be: thrown later, and the Client's own work goes on.
        rethrowLater(error);
      }
    }
    return super.emit(event, ...args);
  }
}

/**
 * A pool server's state:
 * - `idle`: lazy, not started yet;
 * - `starting`: its first connection is under way (within `startTimeout`);
 * - `ready`: connected;
 * - `reconnecting`: it was ready, lost the connection, and is being restarted;
 * - `needs_auth`: an HTTP server waiting for the user's OAuth consent (`onAuthorizationUrl` was
 *   called), or whose authorization failed with an `AuthError` (not retried);
 * - `failed`: it never became ready (or its client gave up); `error` says why and
 *   `nextAttemptAt` when its reconnect policy tries again, if it does;
 * - `disabled`: `"disabled": true` in the config, never started;
 * - `closed`: `close()` was called.
 */
export type ServerState =
  | 'idle'
  | 'starting'
  | 'ready'
  | 'reconnecting'
  | 'needs_auth'
  | 'failed'
  | 'disabled'
  | 'closed';

export interface ServerStatus {
  readonly name: string;
  readonly state: ServerState;
  readonly era: Era | undefined;
  /** A stdio server's pid while it runs. */
  readonly pid: number | undefined;
  /** An HTTP server's URL. */
  readonly url: string | undefined;
  /**
   * Tools last listed (kept while the server is down); undefined before the first list. A server
   * ready while others boot in `connect()` is listed once the last of them has booted (or as
   * `connect()` resolves), any other on its ready.
   */
  readonly toolCount: number | undefined;
  readonly error: Error | undefined;
  /** When the next attempt starts (ms since the epoch, as `Date.now()`), while one is scheduled. */
  readonly nextAttemptAt: number | undefined;
  /** Attempts made after the first (restarts after a loss, retries of a failed start). */
  readonly restarts: number;
  readonly lazy: boolean;
}

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
type Items = { tools: Tool; prompts: Prompt; resources: Resource; resourceTemplates: ResourceTemplate };

interface ListCache {
  items: unknown[] | undefined;
  stale: boolean;
  fetching: Promise<void> | undefined;
  again: boolean;
}

const CAPABILITY: Record<ListKind, string> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'resources',
};
/** Events the pool only passes on, listened to on the Clients once the pool has a listener for them. */
export const RELAYED = { notification: true, log: true, resourceUpdated: true } as const;
export type RelayedEvent = keyof typeof RELAYED;
const CHANGE_EVENT = {
  toolsListChanged: ['tools'],
  promptsListChanged: ['prompts'],
  resourcesListChanged: ['resources', 'resourceTemplates'],
} as const;

/** What every member of one pool shares: one object per pool, not copied into each member. */
export interface MemberShared {
  readonly limiter: Limiter;
  /** The pool's emit, guarded so a throwing listener never unwinds into the member. */
  readonly emit: (event: string, payload: unknown) => void;
  /** The relayed events the pool has listeners for (updated by the pool). */
  readonly relayed: ReadonlySet<RelayedEvent>;
  /**
   * True while the pool's `connect()` has servers booting (holding a start place or waiting for
   * one): a server ready then leaves its tools list to the pool, which fetches the lists once none
   * boots (ClientPool.connect).
   */
  readonly starting: () => boolean;
}

/** A member's own settings; the member keeps them in its fields (no setup object per server). */
export interface MemberSetup {
  readonly shared: MemberShared;
  readonly name: string;
  /**
   * The Client's options when they are not known yet (a config file's `${input:id}` may need the
   * host first); undefined when `options` has them.
   */
  readonly prepare: (() => Promise<ClientOptions>) | undefined;
  /** Set when the options are known now, so `get()` has a Client before the first start. */
  readonly options: ClientOptions | undefined;
  /** An error known before start (a config entry's problem): the server fails at once. */
  readonly error: Error | undefined;
  readonly disabled: boolean;
  readonly lazy: boolean;
  readonly startTimeout: number;
  readonly url: string | undefined;
}

/** One server of a pool: its Client, its state and its last known lists. */
export class PoolMember {
  readonly name: string;
  readonly #shared: MemberShared;
  readonly #prepare: (() => Promise<ClientOptions>) | undefined;
  readonly #options: ClientOptions | undefined;
  /** The config entry's problem, if it has one: every start fails with it. */
  readonly #configError: Error | undefined;
  readonly #lazy: boolean;
  readonly #startTimeout: number;
  readonly #url: string | undefined;
  #client: Client | undefined;
  #state: ServerState;
  #error: Error | undefined;
  #nextAttemptAt: number | undefined;
  #restarts = 0;
  #everReady = false;
  #closing = false;
  #started: Promise<void> | undefined;
  #settleStart: (() => void) | undefined;
  /** Gives this start's place in `concurrency` back: at the server's first message, else at the outcome. */
  #freePlace: (() => void) | undefined;
  /** Counts restart() calls: a start begun before one stops at its next step. */
  #runs = 0;
  /** A plain object, not a Map: a one-entry Map's table is about 250 bytes more per server. */
  readonly #lists: { [K in ListKind]?: ListCache } = {};
  /** OAuth without a store of the host's: one in memory for every Client of this member. */
  #tokens: MemoryTokenStore | undefined;

  constructor(setup: MemberSetup) {
    this.#shared = setup.shared;
    this.#prepare = setup.prepare;
    this.#options = setup.options;
    this.#configError = setup.error;
    this.#lazy = setup.lazy;
    this.#startTimeout = setup.startTimeout;
    this.#url = setup.url;
    this.name = setup.name;
    this.#state = setup.disabled ? 'disabled' : 'idle';
    if (setup.options !== undefined && setup.error === undefined && !setup.disabled) {
      try {
        this.#create(setup.options);
      } catch (error) {
        this.#error = error as Error;
      }
    }
    this.#error ??= setup.error;
  }

  get client(): Client | undefined {
    return this.#client;
  }

  get state(): ServerState {
    return this.#state;
  }

  get error(): Error | undefined {
    return this.#error;
  }

  get lazy(): boolean {
    return this.#lazy;
  }

  status(): ServerStatus {
    return {
      name: this.name,
      state: this.#state,
      era: this.#client?.era,
      pid: this.#client?.pid,
      url: this.#url,
      toolCount: this.#lists.tools?.items?.length,
      error: this.#error,
      nextAttemptAt: this.#nextAttemptAt,
      restarts: this.#restarts,
      lazy: this.#lazy,
    };
  }

  /** Starts the server if it has not started; resolves once it is ready, has failed or timed out. Never rejects. */
  start(): Promise<void> {
    if (this.#state !== 'idle') return this.#started ?? Promise.resolve();
    this.#state = 'starting';
    this.#started = this.#begin();
    return this.#started;
  }

  /**
   * Replaces the Client with a new one (a fresh reconnect budget and backoff) and starts it: the
   * old one is closed first, without its events; the server is `reconnecting` (or `starting` if it
   * was never ready) and its last known lists stay. Resolves like start(). Never rejects.
   */
  async restart(): Promise<void> {
    const old = this.#client;
    const wasReady = this.#state === 'ready';
    const wasStarted = this.#state !== 'idle';
    this.#client = undefined;
    this.#runs++;
    this.#settleStart?.();
    if (old) {
      owners.delete(old);
      await old.close();
    }
    if (this.#closing) return;
    if (wasStarted) this.#restarts++;
    this.#state = this.#everReady ? 'reconnecting' : 'starting';
    this.#error = this.#configError;
    this.#nextAttemptAt = undefined;
    if (wasReady) this.#emit('disconnected', { server: this.name, reason: { type: 'closed' } });
    const started = this.#begin();
    this.#started = started;
    return started;
  }

  async #begin(): Promise<void> {
    const run = this.#runs;
    const release = await this.#shared.limiter.acquire();
    this.#freePlace = release;
    try {
      // close(), or a restart() while this start waited: it is over.
      const over = () => this.#closing || run !== this.#runs;
      if (over()) return;
      let client = this.#client;
      if (client === undefined) {
        if (this.#error !== undefined) {
          this.#fail(this.#error);
          return;
        }
        try {
          const options = this.#prepare ? await this.#prepare() : this.#options!;
          if (over()) return;
          client = this.#create(options);
        } catch (error) {
          this.#fail(error as Error);
          return;
        }
      }
      await this.#firstOutcome(client);
    } finally {
      if (this.#freePlace === release) this.#freePlace = undefined;
      release();
    }
  }

  /**
   * The server wrote its first message: it has booted, which is what the concurrency limit is
   * for; the rest of its handshake (the era probe, initialize) no longer holds a place.
   */
  #answered(): void {
    const free = this.#freePlace;
    this.#freePlace = undefined;
    free?.();
  }

  /** Resolves at the first ready, failed attempt, rejection or start timeout. */
  #firstOutcome(client: Client): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const waiting = this.#state === 'starting' || this.#state === 'reconnecting';
        if (waiting && this.#client === client) {
          this.#fail(new StartTimeoutError(this.name, this.#startTimeout));
        }
        settle();
      }, this.#startTimeout);
      const settle = () => {
        clearTimeout(timer);
        if (this.#settleStart === settle) this.#settleStart = undefined;
        resolve();
      };
      this.#settleStart = settle;
      client.connect().then(settle, (error: Error) => {
        if (!this.#closing && this.#client === client) this.#fail(error);
        settle();
      });
    });
  }

  #create(options: ClientOptions): Client {
    const client = new PooledClient(this.#withMemberAuth(options));
    this.#client = client;
    owners.set(client, this);
    // One function per event shared by every member (it finds its member through the Client), not
    // ten closures per server: a pool of a hundred servers keeps about 1 KiB less per server.
    for (const [event, listener] of Object.entries(PoolMember.#listeners)) {
      if (Object.hasOwn(LIFECYCLE, event)) continue;
      if (!(event in RELAYED) || this.#shared.relayed.has(event as RelayedEvent)) {
        client.on(event as 'ready', listener as () => void);
      }
    }
    client.on('booted', () => this.#answered());
    return client;
  }

  /**
   * Starts relaying one of the events the pool only passes on (`notification`, `log`,
   * `resourceUpdated`): the pool calls it when its first listener for that event is added.
   */
  relay(event: RelayedEvent): void {
    this.#client?.on(event as 'log', PoolMember.#listeners[event] as () => void);
  }

  /**
   * OAuth options as this member's Clients get them. Without a `store` of the host's, every
   * Client of the member shares one in memory, so that restart() (a new Client) keeps the tokens
   * and the registration instead of asking the user again. With `onAuthorizationUrl`, the pool
   * wraps that callback: the server is `needs_auth` from the call until the user's answer (the URL
   * the callback returns, or the redirect the loopback listener catches: the next ready or
   * failure), and `connect()` no longer waits for it.
   */
  #withMemberAuth(options: ClientOptions): ClientOptions {
    // Unchecked here: the Client validates the options and names any problem.
    const transport = options.transport as { type?: unknown; auth?: unknown } | undefined;
    if (transport?.type !== 'http' || !isOAuthOptions(transport.auth)) return options;
    const auth = transport.auth as { onAuthorizationUrl?: unknown; store?: unknown };
    if (auth.store === undefined) this.#tokens ??= new MemoryTokenStore();
    const store = auth.store ?? this.#tokens;
    let onAuthorizationUrl = auth.onAuthorizationUrl;
    if (typeof onAuthorizationUrl === 'function') {
      const ask = onAuthorizationUrl as (this: unknown, url: URL) => Promise<string | URL | undefined>;
      const run = this.#runs;
      onAuthorizationUrl = async (url: URL) => {
        if (run === this.#runs) this.#consentPending(url);
        const back = await ask.call(auth, url);
        // A URL back is the user's answer; nothing back means the loopback listener waits for it.
        if (back !== undefined && run === this.#runs) this.#consentGiven();
        return back;
      };
    }
    const withHooks =
      onAuthorizationUrl === undefined ? { ...auth, store } : { ...auth, store, onAuthorizationUrl };
    return { ...options, transport: { ...transport, auth: withHooks } } as ClientOptions;
  }

  #consentPending(url: URL): void {
    if (this.#closing) return;
    this.#state = 'needs_auth';
    this.#settleStart?.();
    this.#emit('serverNeedsAuth', { server: this.name, url });
  }

  #consentGiven(): void {
    if (this.#closing || this.#state !== 'needs_auth') return;
    this.#state = this.#client?.state === 'ready' ? 'ready' : this.#everReady ? 'reconnecting' : 'starting';
  }

  // A Client that restart() replaced has no owner any more: its late events are dropped.
  static readonly #listeners = {
    ready(this: Client, event: ReadyEvent) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#everReady = true;
      member.#state = 'ready';
      member.#error = undefined;
      member.#nextAttemptAt = undefined;
      for (const cache of Object.values(member.#lists)) cache.stale = true;
      if (!member.#shared.starting()) void member.refresh('tools');
      member.#settleStart?.();
      member.#emit('serverReady', { server: member.name, ...event });
      member.#emit('ready', { server: member.name, ...event });
    },
    disconnected(this: Client, reason: CloseReason) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#error = new ConnectionClosedError(reason, { server: member.name });
      if (member.#state === 'ready') member.#state = 'reconnecting';
      member.#emit('disconnected', { server: member.name, reason });
    },
    reconnecting(this: Client, event: ReconnectingEvent) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#restarts++;
      member.#error = event.error;
      member.#nextAttemptAt = Date.now() + event.delay;
      member.#state = member.#everReady ? 'reconnecting' : downState(event.error);
      member.#settleStart?.();
      member.#emit('serverError', {
        server: member.name,
        error: event.error,
        state: member.#state,
        nextAttemptAt: member.#nextAttemptAt,
      });
      member.#emit('reconnecting', { server: member.name, ...event });
    },
    closed(this: Client, reason: CloseReason | undefined) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#nextAttemptAt = undefined;
      if (member.#closing) {
        member.#state = 'closed';
      } else if (member.#everReady) {
        // Gave up after a loss. Before the first ready, connect()'s rejection brings the cause.
        member.#fail(member.#error ?? new ClientClosedError(reason, { server: member.name }));
      }
      member.#emit('serverClosed', { server: member.name, reason });
      member.#emit('closed', { server: member.name, reason });
    },
    toolsListChanged(this: Client) {
      const member = owners.get(this);
      if (member !== undefined) member.#listChanged('toolsListChanged');
    },
    promptsListChanged(this: Client) {
      const member = owners.get(this);
      if (member !== undefined) member.#listChanged('promptsListChanged');
    },
    resourcesListChanged(this: Client) {
      const member = owners.get(this);
      if (member !== undefined) member.#listChanged('resourcesListChanged');
    },
    notification(this: Client, notification: JsonRpcNotification) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#emit('notification', { server: member.name, notification });
    },
    log(this: Client, message: LogMessage) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#emit('log', { server: member.name, ...message });
    },
    resourceUpdated(this: Client, event: { uri: string }) {
      const member = owners.get(this);
      if (member === undefined) return;
      member.#emit('resourceUpdated', { server: member.name, ...event });
    },
  };

  // PooledClient's way to the lifecycle listeners above (they read the members' private fields).
  static {
    toMember = (client, event, args) => {
      (PoolMember.#listeners[event] as (this: Client, ...args: unknown[]) => void).apply(client, args);
    };
  }

  #emit(event: string, payload: unknown): void {
    this.#shared.emit(event, payload);
  }

  #listChanged(event: keyof typeof CHANGE_EVENT): void {
    for (const kind of CHANGE_EVENT[event]) this.#changed(kind);
    this.#emit(event, { server: this.name });
  }

  #fail(error: Error): void {
    if (this.#closing) return;
    this.#error = attributeTo(error, this.name);
    this.#state = downState(error);
    if (this.#client?.state === 'closed') this.#nextAttemptAt = undefined;
    this.#settleStart?.();
    this.#shared.emit('serverError', {
      server: this.name,
      error,
      state: this.#state,
      nextAttemptAt: this.#nextAttemptAt,
    });
  }

  /** Last known items of a list (kept while the server is down), or undefined before the first. */
  items<K extends ListKind>(kind: K): Items[K][] | undefined {
    return this.#lists[kind]?.items as Items[K][] | undefined;
  }

  /** Fetches a list again if it changed or was never fetched; keeps the last known one on failure. */
  async fresh(kind: ListKind): Promise<void> {
    const cache = this.#lists[kind];
    if (this.#state !== 'ready') return;
    if (cache && !cache.stale && cache.items) return;
    // A fetch under way that no change has made stale already gives the fresh list: wait for it
    // (refresh() would fetch once more after it).
    if (cache?.fetching && !cache.stale) return cache.fetching;
    await this.refresh(kind);
  }

  /** One fetch at a time per list; a change during a fetch runs one more. */
  refresh(kind: ListKind): Promise<void> {
    let cache = this.#lists[kind];
    if (cache === undefined) {
      cache = { items: undefined, stale: true, fetching: undefined, again: false };
      this.#lists[kind] = cache;
    }
    if (cache.fetching) {
      cache.again = true;
      return cache.fetching;
    }
    const entry = cache;
    entry.fetching = (async () => {
      do {
        entry.again = false;
        entry.stale = false;
        try {
          entry.items = await this.#fetch(kind);
        } catch {
          entry.stale = true; // the next list tries again; the server's own error shows in status()
          break;
        }
      } while (entry.again);
      entry.fetching = undefined;
    })();
    return entry.fetching;
  }

  async #fetch(kind: ListKind): Promise<unknown[]> {
    const client = this.#client;
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

  #changed(kind: ListKind): void {
    const cache = this.#lists[kind];
    if (cache === undefined) return;
    cache.stale = true;
    if (cache.fetching) cache.again = true;
    else if (kind === 'tools') void this.refresh(kind);
  }

  /** Stops the server for good. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#settleStart?.();
    const wasClosed = this.#state === 'closed';
    const client = this.#client;
    if (client) await client.close();
    if (this.#state !== 'closed') {
      this.#state = 'closed';
      this.#nextAttemptAt = undefined;
      if (!wasClosed) this.#shared.emit('serverClosed', { server: this.name, reason: undefined });
    }
  }
}

/**
 * needs_auth for an AuthError (authorization required and not obtained: no onAuthorizationUrl to
 * ask the user, no answer in time, refused, a server that never accepts the token), failed for
 * anything else. The supervisor never retries an AuthError: asking again needs the host.
 */
function downState(error: Error): ServerState {
  return isConduitError(error) && error.code === 'CONDUIT_AUTH' ? 'needs_auth' : 'failed';
}
