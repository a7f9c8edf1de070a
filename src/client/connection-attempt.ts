import { ClientClosedError, ConnectTimeoutError } from '../errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { CloseReason, Transport, TransportRuntime } from '../transport/transport.js';
import { Connection } from './connection.js';
import { openSession, ProbeExitError } from './eras/discovery.js';
import type { EraMemory, Session, SessionContext } from './eras/session.js';
import type { PausableClock } from './pausable-clock.js';
import type { SupervisorConfig } from './supervisor.js';
import { waitFor } from './wait.js';

/** What one attempt is given. */
export interface AttemptOptions {
  readonly config: SupervisorConfig;
  readonly context: SessionContext;
  /** What was learnt about the server's era on earlier attempts. */
  readonly memory: EraMemory | undefined;
  /** Runs the connect deadline and the connection's timeouts; stands still while a person is asked. */
  readonly clock: PausableClock;
  readonly runtime: TransportRuntime;
  /** Aborted by close() (or giving up): the attempt ends with a ClientClosedError. */
  readonly signal: AbortSignal;
  readonly onNotification: (notification: JsonRpcNotification) => void;
  /** The server's first message of this attempt. */
  readonly onBooted: () => void;
  /** The restart count: 0 for the first attempt of connect(). */
  readonly attempt: number;
  /** Whether this attempt is a restart (any after the client's first). */
  readonly restart: boolean;
}

/** One attempt under way: its transport and connection, made at once, and the session they lead to. */
export interface Attempt {
  readonly transport: Transport;
  readonly connection: Connection;
  /**
   * The session; or, with the attempt's transport closed, the failure, a ConnectTimeoutError past
   * `connectTimeout`, or a ClientClosedError when the signal aborts.
   */
  readonly session: Promise<Session>;
  /**
   * Once the attempt failed, the close reason it stands for: the transport's own when the server
   * failed, else `connect_failed` with the error.
   */
  readonly failure: CloseReason | undefined;
}

/**
 * Starts one attempt: a new transport and connection; once the transport runs, the way into the
 * session chosen (from the era memory or the probe). A session that arrives after the attempt
 * failed is disposed.
 */
export function startAttempt(options: AttemptOptions): Attempt {
  const { config, signal } = options;
  const transport = config.transport.createTransport(options.runtime);
  const connection = new Connection(transport, {
    name: config.name,
    requestTimeout: config.requestTimeout,
    clock: options.clock,
  });
  connection.on('notification', options.onNotification);
  transport.once('message', options.onBooted);
  let failure: CloseReason | undefined;
  const opening = open(transport, connection, options);
  const session = waitFor(opening, {
    clock: options.clock,
    timeout: config.connectTimeout,
    signal,
    onTimeout: () => {
      throw new ConnectTimeoutError(config.connectTimeout, { server: config.name });
    },
    onAbort: () => {
      throw new ClientClosedError(undefined, { server: config.name });
    },
  }).catch((error: Error) => {
    const own = transport.closeReason;
    failure = own && own.type !== 'closed' ? own : { type: 'connect_failed', error: failureCause(error) };
    void transport.close();
    opening.then(
      (late) => late.dispose(),
      () => {},
    );
    throw error;
  });
  const { telemetry } = config;
  return {
    transport,
    connection,
    session: telemetry === undefined ? session : telemetry.attempt(session, options),
    get failure() {
      return failure;
    },
  };
}

async function open(transport: Transport, connection: Connection, options: AttemptOptions): Promise<Session> {
  const { config } = options;
  // A ConfigError when @opentelemetry/api is missing: a permanent failure, reported by connect().
  if (config.telemetry !== undefined) await config.telemetry.load();
  await transport.start();
  if (options.signal.aborted) throw new ClientClosedError(undefined, { server: config.name });
  return openSession(connection, options.context, {
    mode: config.protocol,
    discovery: config.transport.discovery,
    probeTimeout: config.probeTimeout,
    memory: options.memory,
    handshakeTimeout: config.requestTimeout,
  });
}

/** The error an attempt's failure stands for: a probe exit stands for the close behind it. */
export function failureCause(error: Error): Error {
  return error instanceof ProbeExitError ? error.cause : error;
}
