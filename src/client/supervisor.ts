import { channels, debug } from '../diagnostics.js';
import {
  AbortError,
  AuthError,
  ClientClosedError,
  ConfigError,
  ConnectionClosedError,
  ConnectTimeoutError,
  RequestTimeoutError,
  SpawnError,
  UnsupportedProtocolVersionError,
  UsageError,
} from '../errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { Implementation } from '../protocol/types.js';
import { type Era, LATEST_LEGACY_VERSION, type ProtocolMode } from '../protocol/versions.js';
import type {
  CloseReason,
  ResolvedTransportSpec,
  Transport,
  TransportRuntime,
} from '../transport/transport.js';
import { MAX_TIMER_MS } from '../validate.js';
import { type ReconnectPolicy, reconnectDelay } from './backoff.js';
import { Connection } from './connection.js';
import { chooseSession, holdEarlyRequests, ProbeExitError } from './eras/discovery.js';
import type { EraMemory, Session, SessionContext } from './eras/session.js';
import { keepAlive } from './keepalive.js';
import { PausableClock, type PausableTimer } from './pausable-clock.js';

export type ClientState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closed';

export interface ReadyEvent {
  era: Era;
  protocolVersion: string;
  serverInfo: Implementation | undefined;
}

export interface ReconnectingEvent {
  attempt: number;
  delay: number;
  /** What made this attempt necessary: the failed attempt's error, or the lost connection. */
  error: Error;
}

/** The lifecycle events, and every server notification: the Client passes them on as they are. */
export interface LifecycleEvents {
  /**
   * The server sent its first message of this connection attempt: its process runs (or its
   * origin answers). The era probe and the handshake follow; `ready` comes after them. For a host
   * that limits how many servers boot at once (ClientPool frees a start place here).
   */
  booted: [];
  ready: [event: ReadyEvent];
  disconnected: [reason: CloseReason];
  reconnecting: [event: ReconnectingEvent];
  closed: [reason: CloseReason | undefined];
  notification: [notification: JsonRpcNotification];
}

export interface SupervisorEvents extends LifecycleEvents {
  /** A new session is ready (internal: the client restores subscriptions on it). */
  session: [session: Session];
}

/**
 * The settings the Supervisor reads: the Client's resolved options, shared as they are (no copy
 * per client).
 */
export interface SupervisorConfig {
  readonly name: string;
  /** Creates each process's transport and brings its kind's discovery rules. */
  readonly transport: ResolvedTransportSpec;
  readonly protocol: ProtocolMode;
  readonly probeTimeout: number;
  readonly requestTimeout: number;
  /** One attempt's deadline: spawn, Secret resolution, probe and handshake. */
  readonly connectTimeout: number;
  readonly reconnect: ReconnectPolicy;
  /** Legacy: ms between liveness pings; none when undefined. */
  readonly pingInterval?: number | undefined;
}

/** Receives every event (one function, not a listener table per client). */
export type SupervisorEventSink = (event: keyof SupervisorEvents, args: unknown[]) => void;

/** Failures that starting again cannot heal: reported at once, never retried. */
export function isPermanentFailure(error: unknown): boolean {
  return (
    (error instanceof SpawnError && !error.retryable) ||
    error instanceof ConfigError ||
    error instanceof UnsupportedProtocolVersionError ||
    // A failed OAuth flow is not healed by connecting again, which would only ask the user again.
    error instanceof AuthError
  );
}

interface Waiter {
  resolve: (session: Session) => void;
  reject: (error: Error) => void;
}

/**
 * Keeps one server available: starts it, opens the session (era from memory or the probe),
 * and when the process exits or the transport closes for any reason but close(), restarts it
 * with exponential backoff and jitter, up to `maxReconnects` consecutive failed attempts.
 */
export class Supervisor {
  readonly #config: SupervisorConfig;
  readonly #context: SessionContext;
  readonly #onEvent: SupervisorEventSink;
  #state: ClientState = 'idle';

  /** Read through a method so TypeScript does not narrow it across awaits. */
  #isClosed(): boolean {
    return this.#state === 'closed';
  }
  #session: Session | undefined;
  #connection: Connection | undefined;
  #transport: Transport | undefined;
  #memory: EraMemory | undefined;
  #lastReason: CloseReason | undefined;
  /** The last failure (an attempt's error, or the lost connection): the cause of what follows. */
  #lastError: Error | undefined;
  #firstConnect: Promise<void> | undefined;
  /** Settles the first connect(); dropped once it has settled. */
  #settleFirst: { resolve: () => void; reject: (error: Error) => void } | undefined;
  /** Failed attempts in a row (restarts included); reset after `resetAfter` up. */
  #attempts = 0;
  /** A strict legacy server that exited at the probe is restarted straight into initialize once. */
  #restartedAfterProbeExit = false;
  /** Requests waiting for a session; made on the first. */
  #waiters: Set<Waiter> | undefined;
  /** What close() (or giving up) stops: the attempt under way, the backoff wait. Made on first use. */
  #onStop: Set<() => void> | undefined;
  #stopped = false;
  /** The timeouts of this client's attempts and requests, standing still while a person is asked. */
  readonly #clock = new PausableClock();
  readonly #runtime: TransportRuntime = {
    personWaiting: (waiting) => (waiting ? this.#clock.pause() : this.#clock.resume()),
  };

  constructor(config: SupervisorConfig, context: SessionContext, onEvent: SupervisorEventSink) {
    this.#config = config;
    this.#context = context;
    this.#onEvent = onEvent;
  }

  #emit<E extends keyof SupervisorEvents>(event: E, ...args: SupervisorEvents[E]): void {
    this.#onEvent(event, args);
  }

  get state(): ClientState {
    return this.#state;
  }

  /** The session while ready. */
  get session(): Session | undefined {
    return this.#state === 'ready' ? this.#session : undefined;
  }

  /** The current server process's transport, if any. */
  get transport(): Transport | undefined {
    return this.#transport;
  }

  /** What was learnt about the server's era (kept across restarts). */
  get memory(): EraMemory | undefined {
    return this.#memory;
  }

  /** Starts the server and resolves when ready; the same promise for every caller. */
  connect(): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(this.#closedError());
    this.#firstConnect ??= new Promise<void>((resolve, reject) => {
      this.#state = 'connecting';
      this.#settleFirst = { resolve, reject };
      void this.#run();
    });
    return this.#firstConnect;
  }

  /**
   * The ready session, waiting for a (re)connection within the request's own timeout and signal.
   * `replacing`: a session known to be ending; only a later one will do.
   */
  whenReady(
    method: string,
    options: { signal?: AbortSignal; timeout: number; replacing?: Session },
  ): Promise<Session> {
    const server = this.#config.name;
    if (this.#state === 'ready' && this.#session !== options.replacing)
      return Promise.resolve(this.#session!);
    if (this.#state === 'closed') return Promise.reject(this.#closedError(method));
    if (this.#state === 'idle')
      return Promise.reject(new UsageError(`${method} needs connect() first`, { server }));
    const { signal, timeout } = options;
    if (signal?.aborted) return Promise.reject(new AbortError(method, signal.reason, { server }));
    return new Promise<Session>((resolve, reject) => {
      const done = () => {
        this.#waiters?.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        resolve: (session) => {
          done();
          resolve(session);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const onAbort = () => waiter.reject(new AbortError(method, signal!.reason, { server }));
      // Waiting past the timeout is explained by the failure that made the client reconnect.
      const onTimeout = () =>
        waiter.reject(new RequestTimeoutError(method, timeout, { server, cause: this.#lastError }));
      const timer = Number.isFinite(timeout)
        ? setTimeout(onTimeout, Math.min(timeout, MAX_TIMER_MS))
        : undefined;
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters ??= new Set();
      this.#waiters.add(waiter);
    });
  }

  /** Stops for good: no restart, waiting requests reject, the transport runs its shutdown. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasIdle = this.#state === 'idle';
    this.#state = 'closed';
    this.#stopAll();
    this.#session?.dispose();
    this.#session = undefined;
    // The error (and its stack) is made only when a request waits for ready.
    if (this.#waiters?.size)
      this.#rejectWaiters(new ClientClosedError(undefined, { server: this.#config.name }));
    const transport = this.#transport;
    if (transport) await transport.close();
    if (!wasIdle) this.#emit('closed', undefined);
  }

  /**
   * Attempts until a session is ready (after the backoff for `lost`, a connection that was up),
   * then returns: while ready nothing waits here (no suspended async function per client); the
   * connection's 'close' starts the next run through #lost.
   */
  async #run(lost?: ConnectionClosedError): Promise<void> {
    if (lost !== undefined && !(await this.#backoff(this.#attempts, lost))) return;
    while (!this.#isClosed()) {
      let session: Session;
      try {
        session = await this.#attempt();
      } catch (error) {
        if (this.#isClosed()) {
          this.#takeSettleFirst()?.reject(new ClientClosedError(undefined, { server: this.#config.name }));
          return;
        }
        if (error instanceof ProbeExitError && !this.#restartedAfterProbeExit) {
          // Some strict legacy servers exit when the first message is not initialize.
          this.#restartedAfterProbeExit = true;
          this.#memory = { era: 'legacy', version: LATEST_LEGACY_VERSION };
          debug('%s: %s; restarting straight into initialize', this.#config.name, error.message);
          continue;
        }
        const cause = error instanceof ProbeExitError ? error.cause : (error as Error);
        this.#lastError = cause;
        if (
          isPermanentFailure(cause) ||
          this.#config.transport.isPermanentFailure?.(cause) ||
          this.#attempts >= this.#config.reconnect.maxReconnects
        ) {
          this.#giveUp(cause, this.#takeSettleFirst()?.reject);
          return;
        }
        this.#attempts += 1;
        if (!(await this.#backoff(this.#attempts, cause))) {
          this.#takeSettleFirst()?.reject(new ClientClosedError(undefined, { server: this.#config.name }));
          return;
        }
        continue;
      }
      this.#onReady(session);
      return;
    }
  }

  #takeSettleFirst(): { resolve: () => void; reject: (error: Error) => void } | undefined {
    const settle = this.#settleFirst;
    this.#settleFirst = undefined;
    return settle;
  }

  #onReady(session: Session): void {
    this.#session = session;
    this.#memory = session.memory;
    this.#state = 'ready';
    const ready: ReadyEvent = {
      era: session.era,
      protocolVersion: session.protocolVersion,
      serverInfo: session.serverInfo,
    };
    if (debug.enabled)
      debug('%s: ready (%s era, %s)', this.#config.name, session.era, session.protocolVersion);
    this.#emit('session', session);
    this.#emit('ready', ready);
    if (this.#waiters) for (const waiter of [...this.#waiters]) waiter.resolve(session);
    this.#takeSettleFirst()?.resolve();
    // After resetAfter up, the backoff starts over (no timer when there is nothing to reset).
    const healthy =
      this.#attempts > 0
        ? setTimeout(() => {
            this.#attempts = 0;
          }, this.#config.reconnect.resetAfter).unref()
        : undefined;
    const { pingInterval } = this.#config;
    const connection = this.#connection!;
    const stopPinging =
      pingInterval !== undefined && session.era === 'legacy'
        ? keepAlive(connection, {
            name: this.#config.name,
            interval: pingInterval,
            warn: this.#context.warn,
          })
        : undefined;
    // One microtask after the close, as an await of it would be.
    const onClose = (reason: CloseReason) =>
      queueMicrotask(() => {
        stopPinging?.();
        clearTimeout(healthy);
        session.dispose();
        this.#lost(reason);
      });
    if (connection.closeReason) onClose(connection.closeReason);
    else connection.on('close', onClose); // 'close' comes once
  }

  /** The ready connection closed: restart with backoff, unless closed or out of attempts. */
  #lost(reason: CloseReason): void {
    if (this.#isClosed()) return;
    this.#session = undefined;
    this.#lastReason = reason;
    this.#lastError = new ConnectionClosedError(reason, { server: this.#config.name });
    this.#state = 'reconnecting';
    this.#emit('disconnected', reason);
    if (this.#attempts >= this.#config.reconnect.maxReconnects) {
      this.#giveUp(undefined);
      return;
    }
    this.#attempts += 1;
    void this.#run(new ConnectionClosedError(reason, { server: this.#config.name }));
  }

  /**
   * One attempt within `connectTimeout`, cut short by close(). Past the deadline (a Secret that
   * never resolves, a server that never answers) the attempt's transport is closed and the attempt
   * fails like any other; the close reason kept is the transport's own when the server failed,
   * else `connect_failed` with the error. One promise, settled by whichever comes first: the
   * session, the failure, the deadline or close().
   */
  #attempt(): Promise<Session> {
    const { connectTimeout, name } = this.#config;
    return new Promise<Session>((resolve, reject) => {
      let settled = false;
      let transport: Transport | undefined;
      let deadline: PausableTimer | undefined;
      const finish = () => {
        settled = true;
        deadline?.clear();
        this.#forgetStop(onStop);
      };
      const fail = (error: Error) => {
        if (settled) return;
        finish();
        const own = transport?.closeReason;
        if (!this.#isClosed()) {
          this.#lastReason =
            own && own.type !== 'closed' ? own : { type: 'connect_failed', error: unwrap(error) };
        }
        void transport?.close();
        reject(error);
      };
      const onStop = () => fail(new ClientClosedError(undefined, { server: name }));
      // The session's promise is taken as #open hands it over (no turn for an async layer between).
      const chosen = (session: Promise<Session>, release: (session: Session) => Session) =>
        session.then((opened) => {
          let released: Session;
          try {
            released = release(opened);
          } catch (error) {
            fail(error as Error);
            return;
          }
          // The losing attempt settles on its own once its transport is closed.
          if (settled) released.dispose();
          else {
            finish();
            resolve(released);
          }
        }, fail);
      this.#open(chosen).then(undefined, fail);
      // #open made the transport and connection before its first await: both are this attempt's.
      transport = this.#transport;
      // The time the user takes to consent (OAuth) is not counted.
      deadline = this.#clock.setTimeout(
        () => fail(new ConnectTimeoutError(connectTimeout, { server: name })),
        connectTimeout,
      );
      this.#whenStopped(onStop);
    });
  }

  /**
   * One attempt: a new process, a new connection, and once the transport runs, the way into the
   * session chosen; its promise goes to `chosen` with the step that releases the server requests
   * held meanwhile. Rejects if the transport cannot start (or the client was closed meanwhile).
   */
  async #open(
    chosen: (session: Promise<Session>, release: (session: Session) => Session) => void,
  ): Promise<void> {
    const config = this.#config;
    const transport = config.transport.createTransport(this.#runtime);
    const connection = new Connection(transport, {
      name: config.name,
      requestTimeout: config.requestTimeout,
      clock: this.#clock,
    });
    connection.on('notification', (notification) => this.#emit('notification', notification));
    transport.once('message', () => this.#emit('booted'));
    this.#transport = transport;
    this.#connection = connection;
    try {
      await transport.start();
      if (this.#isClosed()) throw new ClientClosedError(undefined, { server: config.name });
    } catch (error) {
      void transport.close();
      throw error;
    }
    // The session's two steps: server requests held, then the way in chosen (from memory or the probe).
    const held = holdEarlyRequests(connection);
    chosen(
      chooseSession(connection, this.#context, {
        mode: config.protocol,
        discovery: config.transport.discovery,
        probeTimeout: config.probeTimeout,
        memory: this.#memory,
        handshakeTimeout: config.requestTimeout,
      }),
      (session) => held.release(session, this.#context.name),
    );
  }

  /** What a call on a closed client gets: the last close reason, and the failure behind it. */
  #closedError(method?: string): ClientClosedError {
    return new ClientClosedError(this.#lastReason, {
      server: this.#config.name,
      method,
      cause: this.#lastError,
    });
  }

  /** Waits the backoff delay for this attempt; false if close() came first. */
  async #backoff(attempt: number, error: Error): Promise<boolean> {
    const delay = reconnectDelay(attempt, this.#config.reconnect);
    this.#state = 'reconnecting';
    if (channels.reconnect.hasSubscribers) {
      channels.reconnect.publish({ server: this.#config.name, attempt, delay });
    }
    debug('%s: reconnect attempt %d in %d ms', this.#config.name, attempt, delay);
    this.#emit('reconnecting', { attempt, delay, error });
    if (this.#stopped) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#forgetStop(done);
        resolve();
      };
      const timer = setTimeout(done, delay);
      this.#whenStopped(done);
    });
    return !this.#isClosed();
  }

  #giveUp(cause: Error | undefined, rejectFirst?: (error: Error) => void): void {
    this.#state = 'closed';
    this.#stopAll();
    const reason = this.#lastReason;
    debug('%s: giving up (%s)', this.#config.name, cause?.message ?? 'too many restarts');
    const error = cause ?? this.#closedError();
    this.#rejectWaiters(this.#closedError());
    rejectFirst?.(error);
    this.#emit('closed', reason);
  }

  /** Calls `callback` on the first close() or give-up (never if that already happened). */
  #whenStopped(callback: () => void): void {
    if (this.#stopped) return;
    this.#onStop ??= new Set();
    this.#onStop.add(callback);
  }

  #forgetStop(callback: () => void): void {
    if (this.#onStop?.delete(callback) && this.#onStop.size === 0) this.#onStop = undefined;
  }

  #stopAll(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    const callbacks = this.#onStop;
    this.#onStop = undefined;
    if (callbacks) for (const callback of callbacks) callback();
  }

  #rejectWaiters(error: Error): void {
    if (this.#waiters) for (const waiter of [...this.#waiters]) waiter.reject(error);
  }
}

/** The error a probe exit stands for. */
function unwrap(error: Error): Error {
  return error instanceof ProbeExitError ? error.cause : error;
}
