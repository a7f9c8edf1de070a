import { attributeTo } from '../attribution.js';
import { MemoryTokenStore } from '../auth/token-store.js';
import { Client } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import type { ReconnectingEvent } from '../client/supervisor.js';
import { ClientClosedError, ConfigError, ConnectionClosedError } from '../errors.js';
import type { Tool } from '../protocol/results.js';
import type { CloseReason } from '../transport/transport.js';
import { StartTimeoutError } from './errors.js';
import type { Limiter } from './limit.js';
import { ListCache, type ListItems, type ListKind } from './list-cache.js';
import { downState, withMemberAuth } from './member-auth.js';
import { listenToClient, type RelayedEvent, relayEvent } from './member-events.js';
import type { ServerState, ServerStatus } from './server-status.js';

/** What every member of one pool shares. */
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
  /** A server listed its tools (each fetch of the list, in its own names). */
  readonly toolsListed: (server: string, tools: Tool[]) => void;
}

/** A member's own settings. */
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

/**
 * One server of a pool: its Client, its state and its last known lists. Its Client's events reach
 * it through the listeners of member-events.ts, which call the `on...` methods below.
 */
export class PoolMember {
  readonly name: string;
  readonly #setup: MemberSetup;
  readonly #shared: MemberShared;
  readonly #lists = new ListCache(this);
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
  /** OAuth without a store of the host's: one in memory for every Client of this member. */
  #tokens: MemoryTokenStore | undefined;

  constructor(setup: MemberSetup) {
    this.#setup = setup;
    this.#shared = setup.shared;
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

  get nextAttemptAt(): number | undefined {
    return this.#nextAttemptAt;
  }

  get lazy(): boolean {
    return this.#setup.lazy;
  }

  status(): ServerStatus {
    return {
      name: this.name,
      state: this.#state,
      era: this.#client?.era,
      pid: this.#client?.pid,
      url: this.#setup.url,
      toolCount: this.#lists.items('tools')?.length,
      error: this.#error,
      nextAttemptAt: this.#nextAttemptAt,
      restarts: this.#restarts,
      lazy: this.#setup.lazy,
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
    if (old) await old.close();
    if (this.#closing) return;
    if (wasStarted) this.#restarts++;
    this.#state = this.#everReady ? 'reconnecting' : 'starting';
    this.#error = this.#setup.error;
    this.#nextAttemptAt = undefined;
    if (wasReady) this.#shared.emit('disconnected', { server: this.name, reason: { type: 'closed' } });
    this.#started = this.#begin();
    return this.#started;
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
          const options = this.#setup.prepare ? await this.#setup.prepare() : this.#setup.options!;
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

  /** Resolves at the first ready, failed attempt, rejection or start timeout. */
  #firstOutcome(client: Client): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const waiting = this.#state === 'starting' || this.#state === 'reconnecting';
        if (waiting && this.#client === client) {
          this.#fail(new StartTimeoutError(this.name, this.#setup.startTimeout));
        }
        settle();
      }, this.#setup.startTimeout);
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
    try {
      return this.#newClient(options);
    } catch (error) {
      // Among many servers' errors, a bad option names its server in the message too.
      if (error instanceof ConfigError && !error.message.startsWith(`${this.name}: `)) {
        throw attributeTo(
          new ConfigError(error.key, `${this.name}: ${error.message}`, { cause: error }),
          this.name,
        );
      }
      throw error;
    }
  }

  #newClient(options: ClientOptions): Client {
    const run = this.#runs;
    const client = new Client(
      withMemberAuth(options, () => (this.#tokens ??= new MemoryTokenStore()), {
        asked: (url) => {
          if (run !== this.#runs || this.#closing) return;
          this.#state = 'needs_auth';
          this.#settleStart?.();
          this.#shared.emit('serverNeedsAuth', { server: this.name, url });
        },
        answered: () => {
          if (run !== this.#runs || this.#closing || this.#state !== 'needs_auth') return;
          this.#state =
            this.#client?.state === 'ready' ? 'ready' : this.#everReady ? 'reconnecting' : 'starting';
        },
      }),
    );
    this.#client = client;
    listenToClient(client, this, this.#shared);
    return client;
  }

  /**
   * Starts relaying one of the events the pool only passes on (`notification`, `log`,
   * `resourceUpdated`): the pool calls it when its first listener for that event is added.
   */
  relay(event: RelayedEvent): void {
    relayEvent(this, event, this.#shared);
  }

  /**
   * The server wrote its first message: it has booted, which is what the concurrency limit is
   * for; the rest of its handshake (the era probe, initialize) no longer holds a place.
   */
  onBooted(): void {
    const free = this.#freePlace;
    this.#freePlace = undefined;
    free?.();
  }

  onReady(): void {
    this.#everReady = true;
    this.#state = 'ready';
    this.#error = undefined;
    this.#nextAttemptAt = undefined;
    this.#lists.markStale();
    if (!this.#shared.starting()) void this.#lists.refresh('tools');
    this.#settleStart?.();
  }

  onDisconnected(reason: CloseReason): void {
    this.#error = new ConnectionClosedError(reason, { server: this.name });
    if (this.#state === 'ready') this.#state = 'reconnecting';
  }

  onReconnecting(event: ReconnectingEvent): void {
    this.#restarts++;
    this.#error = event.error;
    this.#nextAttemptAt = Date.now() + event.delay;
    this.#state = this.#everReady ? 'reconnecting' : downState(event.error);
    this.#settleStart?.();
  }

  onClientClosed(reason: CloseReason | undefined): void {
    this.#nextAttemptAt = undefined;
    if (this.#closing) {
      this.#state = 'closed';
    } else if (this.#everReady) {
      // Gave up after a loss. Before the first ready, connect()'s rejection brings the cause.
      this.#fail(this.#error ?? new ClientClosedError(reason, { server: this.name }));
    }
  }

  /** The list cache fetched a list. */
  listed(kind: ListKind, items: unknown[]): void {
    if (kind === 'tools') this.#shared.toolsListed(this.name, items as Tool[]);
  }

  onListsChanged(kinds: readonly ListKind[]): void {
    for (const kind of kinds) this.#lists.changed(kind);
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
  items<K extends ListKind>(kind: K): ListItems[K][] | undefined {
    return this.#lists.items(kind);
  }

  /** While ready: fetches a list again if it changed or was never fetched. */
  async fresh(kind: ListKind): Promise<void> {
    if (this.#state === 'ready') await this.#lists.fresh(kind);
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
