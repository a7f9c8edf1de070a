import { channels, debug } from '../diagnostics.js';
import {
  AuthError,
  ClientClosedError,
  ConfigError,
  ConnectionClosedError,
  SpawnError,
  UnsupportedProtocolVersionError,
  UsageError,
} from '../errors.js';
import { LATEST_LEGACY_VERSION, type ProtocolMode } from '../protocol/versions.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type {
  CloseReason,
  ResolvedTransportSpec,
  Transport,
  TransportRuntime,
} from '../transport/transport.js';
import { type ReconnectPolicy, reconnectDelay } from './backoff.js';
import type { Connection } from './connection.js';
import { failureCause, startAttempt } from './connection-attempt.js';
import { ProbeExitError } from './eras/discovery.js';
import type { EraMemory, Session, SessionContext } from './eras/session.js';
import { keepAlive } from './keepalive.js';
import type { ClientState, LifecycleEvents } from './lifecycle-events.js';
import { PausableClock } from './pausable-clock.js';
import { ReadyWaiters } from './ready-waiters.js';
import { waitFor } from './wait.js';

export type { ClientState, LifecycleEvents, ReadyEvent, ReconnectingEvent } from './lifecycle-events.js';

export interface SupervisorEvents extends LifecycleEvents {
  /** A new session is ready (internal: the client restores subscriptions on it). */
  session: [session: Session];
}

/** The settings the Supervisor reads: the Client's resolved options. */
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
  /** OpenTelemetry spans of each attempt (and request), when the option is on. */
  readonly telemetry?: Telemetry | undefined;
}

/** Receives every event the Supervisor emits. */
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
  /** Attempts started so far: each after the first is a restart. */
  #started = 0;
  /** A strict legacy server that exited at the probe is restarted straight into initialize once. */
  #restartedAfterProbeExit = false;
  /** Aborted by close() or giving up: ends the attempt under way and the backoff wait. */
  readonly #stop = new AbortController();
  /** The timeouts of this client's attempts and requests, standing still while a person is asked. */
  readonly #clock = new PausableClock();
  /** Requests waiting for a session: their timeouts stand still during a consent too. */
  readonly #waiters = new ReadyWaiters(this.#clock);
  /** The clock of this client's timeouts (`now()` is its running time). */
  get clock(): PausableClock {
    return this.#clock;
  }

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

  /** Read through a method so TypeScript does not narrow it across awaits. */
  #isClosed(): boolean {
    return this.#state === 'closed';
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
    return this.#waiters.wait({
      method,
      server,
      timeout: options.timeout,
      signal: options.signal,
      cause: () => this.#lastError,
    });
  }

  /** Stops for good: no restart, waiting requests reject, the transport runs its shutdown. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasIdle = this.#state === 'idle';
    this.#state = 'closed';
    this.#stop.abort();
    this.#config.telemetry?.close();
    this.#session?.dispose();
    this.#session = undefined;
    this.#waiters.reject(new ClientClosedError(undefined, { server: this.#config.name }));
    const transport = this.#transport;
    if (transport) await transport.close();
    if (!wasIdle) this.#emit('closed', undefined);
  }

  /**
   * The reconnect loop: attempts until a session is ready, serves it until its connection closes,
   * and starts again; returns once closed or out of attempts.
   */
  async #run(): Promise<void> {
    for (;;) {
      let session: Session;
      try {
        session = await this.#attempt();
      } catch (error) {
        if (await this.#retryAfter(error as Error)) continue;
        return;
      }
      const connection = this.#connection!;
      const stopServing = this.#onReady(session, connection);
      const reason = await closeOf(connection);
      stopServing();
      if (!(await this.#reconnectAfter(reason))) return;
    }
  }

  /** One attempt; its transport and connection are the current ones from the start. */
  async #attempt(): Promise<Session> {
    let attempt: ReturnType<typeof startAttempt>;
    try {
      attempt = startAttempt({
        config: this.#config,
        context: this.#context,
        memory: this.#memory,
        clock: this.#clock,
        runtime: this.#runtime,
        signal: this.#stop.signal,
        onNotification: (notification) => this.#emit('notification', notification),
        onBooted: () => this.#emit('booted'),
        attempt: this.#attempts,
        restart: this.#started++ > 0,
      });
    } catch (error) {
      // No transport was made (the kind's createTransport threw): nothing of the last one stands.
      this.#transport = undefined;
      this.#connection = undefined;
      if (!this.#isClosed()) this.#lastReason = { type: 'connect_failed', error: error as Error };
      throw error;
    }
    this.#transport = attempt.transport;
    this.#connection = attempt.connection;
    try {
      return await attempt.session;
    } catch (error) {
      if (!this.#isClosed()) this.#lastReason = attempt.failure;
      throw error;
    }
  }

  /** An attempt failed: true to attempt again (straight away after a probe exit, else after the backoff). */
  async #retryAfter(error: Error): Promise<boolean> {
    const server = this.#config.name;
    if (this.#isClosed()) {
      this.#takeSettleFirst()?.reject(new ClientClosedError(undefined, { server }));
      return false;
    }
    if (error instanceof ProbeExitError && !this.#restartedAfterProbeExit) {
      // Some strict legacy servers exit when the first message is not initialize.
      this.#restartedAfterProbeExit = true;
      this.#memory = { era: 'legacy', version: LATEST_LEGACY_VERSION };
      debug('%s: %s; restarting straight into initialize', server, error.message);
      return true;
    }
    const cause = failureCause(error);
    this.#lastError = cause;
    if (
      isPermanentFailure(cause) ||
      this.#config.transport.isPermanentFailure?.(cause) ||
      this.#attempts >= this.#config.reconnect.maxReconnects
    ) {
      this.#giveUp(cause, this.#takeSettleFirst()?.reject);
      return false;
    }
    this.#attempts += 1;
    if (await this.#backoff(this.#attempts, cause)) return true;
    this.#takeSettleFirst()?.reject(new ClientClosedError(undefined, { server }));
    return false;
  }

  /** The session is ready: announce it and start what serving it needs; returns what stops that. */
  #onReady(session: Session, connection: Connection): () => void {
    this.#session = session;
    this.#memory = session.memory;
    this.#state = 'ready';
    debug('%s: ready (%s era, %s)', this.#config.name, session.era, session.protocolVersion);
    this.#emit('session', session);
    this.#emit('ready', {
      era: session.era,
      protocolVersion: session.protocolVersion,
      serverInfo: session.serverInfo,
    });
    this.#waiters.resolve(session);
    this.#takeSettleFirst()?.resolve();
    // After resetAfter up, the backoff starts over.
    const healthy =
      this.#attempts > 0
        ? setTimeout(() => {
            this.#attempts = 0;
          }, this.#config.reconnect.resetAfter).unref()
        : undefined;
    const { pingInterval } = this.#config;
    const stopPinging =
      pingInterval !== undefined && session.era === 'legacy'
        ? keepAlive(connection, {
            name: this.#config.name,
            interval: pingInterval,
            warn: this.#context.warn,
          })
        : undefined;
    return () => {
      stopPinging?.();
      clearTimeout(healthy);
      session.dispose();
    };
  }

  /** The ready connection closed: true to attempt again after the backoff, false if closed or out of attempts. */
  async #reconnectAfter(reason: CloseReason): Promise<boolean> {
    if (this.#isClosed()) return false;
    this.#session = undefined;
    this.#lastReason = reason;
    const lost = new ConnectionClosedError(reason, { server: this.#config.name });
    this.#lastError = lost;
    this.#state = 'reconnecting';
    this.#emit('disconnected', reason);
    if (this.#attempts >= this.#config.reconnect.maxReconnects) {
      this.#giveUp(undefined);
      return false;
    }
    this.#attempts += 1;
    return this.#backoff(this.#attempts, lost);
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
    const over = () => undefined;
    await waitFor(undefined, { timeout: delay, signal: this.#stop.signal, onTimeout: over, onAbort: over });
    return !this.#isClosed();
  }

  #giveUp(cause: Error | undefined, rejectFirst?: (error: Error) => void): void {
    this.#state = 'closed';
    this.#stop.abort();
    this.#config.telemetry?.close();
    const reason = this.#lastReason;
    debug('%s: giving up (%s)', this.#config.name, cause?.message ?? 'too many restarts');
    const error = cause ?? this.#closedError();
    this.#waiters.reject(this.#closedError());
    rejectFirst?.(error);
    this.#emit('closed', reason);
  }

  #takeSettleFirst(): { resolve: () => void; reject: (error: Error) => void } | undefined {
    const settle = this.#settleFirst;
    this.#settleFirst = undefined;
    return settle;
  }

  /** What a call on a closed client gets: the last close reason, and the failure behind it. */
  #closedError(method?: string): ClientClosedError {
    return new ClientClosedError(this.#lastReason, {
      server: this.#config.name,
      method,
      cause: this.#lastError,
    });
  }
}

/** The connection's close reason, once it has closed. */
function closeOf(connection: Connection): Promise<CloseReason> {
  const { closeReason } = connection;
  if (closeReason) return Promise.resolve(closeReason);
  return new Promise((resolve) => connection.once('close', resolve));
}
