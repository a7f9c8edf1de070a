import type { EventEmitter } from 'node:events';
import type { CloseReason } from '../close-reason/close-reason.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/messages.js';

export type { CloseReason, CloseReasonType } from '../close-reason/close-reason.js';

/** The events every transport emits. */
export interface TransportEvents {
  /** A message from the server. */
  message: [message: JsonRpcMessage];
  /** The transport closed, with why; emitted exactly once, and nothing after it. */
  close: [reason: CloseReason];
  /**
   * One request failed without an answer from the server (HTTP: a status, a network error, a
   * broken stream); only that request settles, with `error`. Stdio never emits it. An error
   * marked by {@link markNotRun} proves the server never ran the request (the Client may send it again).
   */
  requestFailed: [id: RequestId, error: Error];
}

/**
 * Bytes <-> messages for one server process (or origin). The Connection above it knows nothing else.
 * After `'close'` nothing more is emitted and `send` throws `ConnectionClosedError`.
 */
export interface Transport extends EventEmitter<TransportEvents> {
  /** The transport's kind, e.g. `'stdio'`, `'http'`, `'memory'`, or a custom transport's own. */
  readonly kind: string;
  /** The server's process id, for a transport that runs a process, once it runs. */
  readonly pid?: number | undefined;
  /** Starts the server; resolves once it runs. Rejects (and emits `'close'`) if it cannot start. */
  start(): Promise<void>;
  /** Hands one message to the server without waiting. Throws `ConnectionClosedError` after close. */
  send(message: JsonRpcMessage): void;
  /** Closes for good; resolves when the transport is closed (not when the process is gone). */
  close(): Promise<void>;
  /** The reason it closed, once it has. */
  readonly closeReason: CloseReason | undefined;
  /**
   * Told the protocol version the session agreed on, once it has: for a transport whose requests
   * carry it (HTTP's `MCP-Protocol-Version` header).
   */
  setProtocolVersion?(version: string): void;
}

/**
 * How a transport kind tells the eras apart: the defaults and rules the era probe follows on it.
 * The probe is `server/discover`; a DiscoverResult or a recognised modern error (-32022, -32021)
 * is read the same on every transport, but what silence or any other failure means depends on it.
 */
export interface DiscoveryRules {
  /** How long the probe waits before `probeTimeoutMeansLegacy` applies, ms (ClientOptions.probeTimeout's default). */
  readonly probeTimeout: number;
  /**
   * True if no answer within `probeTimeout` means legacy (stdio: a legacy server waits for
   * `initialize`; a late DiscoverResult may still win). False: the attempt fails and is retried.
   */
  readonly probeTimeoutMeansLegacy: boolean;
  /**
   * True if this probe failure (anything but a DiscoverResult or a recognised modern error)
   * means legacy; false: the attempt fails with it. stdio: always true.
   */
  probeErrorMeansLegacy(error: unknown): boolean;
  /**
   * True if the transport closing during the probe means legacy: a strict legacy stdio server
   * exits when the first message is not `initialize`, so the Supervisor restarts it straight
   * into `initialize` (once). False: the close is an ordinary failed attempt.
   */
  readonly closeDuringProbeMeansLegacy: boolean;
}

/**
 * A transport spec validated once, at Client construction: it creates one fresh transport per
 * server process (or origin) and brings its kind's discovery rules. The Supervisor is given one
 * and never names a concrete transport.
 */
export interface ResolvedTransportSpec {
  readonly kind: string;
  readonly discovery: DiscoveryRules;
  /** A new, unstarted transport; each (re)start asks for one. */
  createTransport(runtime: TransportRuntime): Transport;
  /** True for a failure of this kind that starting again cannot heal (then it is not retried). */
  isPermanentFailure?(error: unknown): boolean;
}

/** What a Client lends each transport it creates. */
export interface TransportRuntime {
  /**
   * A transport that asks a person something (an OAuth consent) calls this with true as it starts
   * waiting and false when the answer came: the Client's timeouts stand still meanwhile, as the
   * wait has its own bound.
   */
  readonly personWaiting: (waiting: boolean) => void;
}

const kNotRun = Symbol('conduit-mcp.notRun');

/**
 * Marks the error of a request the server refused before running it (a legacy HTTP session's
 * 404): the Client may send it once more on the next connection.
 */
export function markNotRun<E extends Error>(error: E): E {
  Object.defineProperty(error, kNotRun, { value: true });
  return error;
}

/** Whether `error` is of a request the server never ran (see {@link markNotRun}). */
export function wasNotRun(error: unknown): boolean {
  return typeof error === 'object' && error !== null && kNotRun in error;
}

/** Replaces each secret value (longest first, so a prefix never leaves a tail) with `[Secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) result = result.split(secret).join('[Secret]');
  }
  return result;
}

/** Where a spec is resolved: the client's name (for errors and telemetry) and the spec's option key. */
export interface TransportSpecContext {
  readonly name: string;
  /** The key the spec was given under, for ConfigError keys, e.g. `transport`. */
  readonly keyPrefix: string;
}

/** One transport kind: the `type` of its spec, and how a raw spec of that type is resolved. */
export interface TransportKind {
  readonly type: string;
  /**
   * Validates the raw spec in one pass (ConfigError naming `<keyPrefix>.<key>`), or throws. `raw`
   * is a null-prototype copy of the spec's own properties (validate.ts ownProperties).
   */
  resolve(raw: Record<string, unknown>, context: TransportSpecContext): ResolvedTransportSpec;
}
