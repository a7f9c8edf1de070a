import { channels, debug } from '../diagnostics.js';
import { AbortError, ConnectionClosedError, McpError, RequestTimeoutError, UsageError } from '../errors.js';
import { INTERNAL_ERROR } from '../jsonrpc/error-codes.js';
import type {
  JsonObject,
  JsonRpcErrorObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  RequestId,
} from '../jsonrpc/messages.js';
import type { CloseReason, Transport } from '../transport/transport.js';
import { SafeEmitter } from '../user-code.js';
import { PausableClock } from './pausable-clock.js';
import { type Progress, ProgressRelay } from './progress.js';
import { RequestDeadlines } from './request-deadlines.js';

/** Per-request options, in both eras. Durations in milliseconds. */
export interface RequestOptions {
  /** Aborting rejects with an AbortError and, if the request was sent, writes `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Time to wait for the answer. @defaultValue the client's `requestTimeout` (60000) */
  timeout?: number;
  /**
   * Receives this request's progress notifications, in order; sets a progress token. Past 16 in a
   * burst, those of one event-loop turn are coalesced into the latest (delivered before the result).
   * A throw or rejection is re-thrown on a later turn of the event loop; the request goes on.
   */
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout on each progress notification. @defaultValue false */
  resetTimeoutOnProgress?: boolean;
  /**
   * A hard cap on the whole request, enforced by its own timer, progress or not.
   * @defaultValue none; with `resetTimeoutOnProgress`, DEFAULT_TOTAL_TIMEOUT_FACTOR × the timeout
   */
  maxTotalTimeout?: number;
}

/** Options only the library itself sets. */
export interface InternalRequestOptions extends RequestOptions {
  /** False for requests that must never be cancelled on the wire (`initialize`, the era probe). */
  cancelOnWire?: boolean;
  /** A chosen id (listen requests use string ids); by default the next integer. */
  id?: RequestId;
}

interface Pending {
  readonly id: RequestId;
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly cancelOnWire: boolean;
  readonly timeout: number;
  /** When it times out, in the clock's running time (Infinity: never). */
  due: number;
  /** The `maxTotalTimeout` cap (ms) and when it ends (Infinity: none). */
  readonly total: number;
  readonly totalDue: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  progress: ProgressRelay | undefined;
  resetTimeoutOnProgress: boolean;
}

/**
 * A request whose timeout restarts on progress is still capped, by default at this many times its
 * timeout (so progress alone never keeps it alive forever).
 */
export const DEFAULT_TOTAL_TIMEOUT_FACTOR = 10;

export interface ConnectionEvents {
  notification: [notification: JsonRpcNotification];
  /** Emitted once (listeners need no once() wrapper, each a closure and a bound function). */
  close: [reason: CloseReason];
}

/**
 * JSON-RPC over one transport instance: unique ids, the pending map, timeouts, AbortSignal ->
 * `notifications/cancelled`, progress routing. Every request settles exactly once: its result,
 * the server's error (McpError), or a typed rejection; none stays pending once the transport closes.
 */
export class Connection extends SafeEmitter<ConnectionEvents> {
  readonly #transport: Transport;
  readonly #name: string | undefined;
  readonly #defaultTimeout: number;
  readonly #pending = new Map<RequestId, Pending>();
  #nextId = 1;
  #closeReason: CloseReason | undefined;
  #lostReason: CloseReason | undefined;
  /** The Client's clock: request timeouts stand still while a person is asked (OAuth consent). */
  readonly clock: PausableClock;
  readonly #deadlines: RequestDeadlines;
  /** Called for each request the server sends; by default they are dropped (the modern rule). */
  onRequest: ((request: JsonRpcRequest) => void) | undefined;

  constructor(
    transport: Transport,
    options: { name?: string; requestTimeout: number; clock?: PausableClock | undefined },
  ) {
    super();
    this.#transport = transport;
    this.#name = options.name;
    this.#defaultTimeout = options.requestTimeout;
    this.clock = options.clock ?? new PausableClock();
    this.#deadlines = new RequestDeadlines(this.clock, (now) => this.#expire(now));
    transport.on('message', (message) => this.#onMessage(message));
    transport.on('close', (reason) => this.#onClose(reason));
    transport.on('requestFailed', (id, error) => {
      const pending = this.#pending.get(id);
      if (pending) this.#settle(pending, error);
    });
  }

  get transport(): Transport {
    return this.#transport;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  /** Requests still waiting for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  request(method: string, params?: JsonObject, options?: InternalRequestOptions): Promise<unknown> {
    return this.start(method, params, options).promise;
  }

  /** Sends a request and returns its id with the promise, so the caller can `abandon` it. */
  start(
    method: string,
    params?: JsonObject,
    options: InternalRequestOptions = {},
  ): { id: RequestId | undefined; promise: Promise<unknown> } {
    if (this.#closeReason) {
      return refused(new ConnectionClosedError(this.#closeReason, { server: this.#name, method }));
    }
    const { signal } = options;
    if (signal?.aborted) return refused(new AbortError(method, signal.reason, { server: this.#name }));
    const id = options.id ?? this.#freshId();
    if (options.id !== undefined && this.#pending.has(id)) {
      // Ids are the client's: a chosen id (the library's own listen streams) never shadows another.
      return refused(new UsageError(`${method}: request id ${id} is already in use`, { server: this.#name }));
    }
    if (options.onProgress || options.resetTimeoutOnProgress) {
      params = { ...params, _meta: { ...(params?._meta as JsonObject | undefined), progressToken: id } };
    }
    const timeout = options.timeout ?? this.#defaultTimeout;
    const resetTimeoutOnProgress = options.resetTimeoutOnProgress ?? false;
    const total =
      options.maxTotalTimeout ??
      (resetTimeoutOnProgress ? timeout * DEFAULT_TOTAL_TIMEOUT_FACTOR : Number.POSITIVE_INFINITY);
    const now = Number.isFinite(timeout) || Number.isFinite(total) ? this.#deadlines.now() : 0;
    let pending!: Pending;
    const promise = new Promise<unknown>((resolve, reject) => {
      pending = {
        id,
        method,
        resolve,
        reject,
        cancelOnWire: options.cancelOnWire ?? true,
        timeout,
        due: now + timeout,
        total,
        totalDue: now + total,
        signal,
        onAbort: undefined,
        progress: options.onProgress && new ProgressRelay(options.onProgress),
        resetTimeoutOnProgress,
      };
    });
    this.#pending.set(id, pending);
    this.#deadlines.watch(Math.min(pending.due, pending.totalDue));
    if (signal) {
      pending.onAbort = () =>
        this.#settle(
          pending,
          new AbortError(method, signal.reason, { server: this.#name }),
          undefined,
          'aborted',
        );
      signal.addEventListener('abort', pending.onAbort, { once: true });
    }
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    try {
      this.#transport.send(message);
    } catch (error) {
      this.#settle(pending, error as Error);
    }
    return { id, promise };
  }

  /** Sends a notification; throws ConnectionClosedError once closed. */
  notify(method: string, params?: JsonObject): void {
    this.#transport.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    );
  }

  /**
   * Answers a server request (legacy era only); never throws. A result that cannot be serialised
   * (a BigInt, a cycle) is answered with -32603 instead. A write that fails closes the transport
   * with its reason (the write queue, or the pipe); an answer after close is dropped.
   */
  respond(id: RequestId, outcome: { result: unknown } | { error: JsonRpcErrorObject }): void {
    const name = this.#name ?? 'client';
    if (this.#closeReason) {
      debug('%s: not answering server request %s: the connection is closed', name, id);
      return;
    }
    try {
      this.#transport.send({ jsonrpc: '2.0', id, ...outcome } as JsonRpcMessage);
      return;
    } catch (error) {
      if (this.#closeReason || error instanceof ConnectionClosedError) {
        debug('%s: the answer to server request %s was not sent: %s', name, id, (error as Error).message);
        return;
      }
      debug('%s: the answer to server request %s cannot be sent: %s', name, id, (error as Error).message);
    }
    const message = 'the client could not serialise its answer to this request';
    try {
      this.#transport.send({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } });
    } catch (error) {
      debug('%s: the error answer to server request %s was not sent: %s', name, id, (error as Error).message);
    }
  }

  /** Stops waiting for a request locally, writing nothing; a late answer is dropped. */
  abandon(id: RequestId | undefined, error: Error): void {
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (pending) this.#settle(pending, error);
  }

  close(): Promise<void> {
    return this.#transport.close();
  }

  /**
   * Takes the server as lost for a reason the client found (a ping timeout): closes the transport
   * and reports `reason`, not `closed`, to everything waiting on this connection.
   */
  lose(reason: CloseReason): Promise<void> {
    this.#lostReason ??= reason;
    return this.#transport.close();
  }

  /** The next integer id no pending request holds. */
  #freshId(): number {
    while (this.#pending.has(this.#nextId)) this.#nextId++;
    return this.#nextId++;
  }

  /** Times out the requests due by `now`, earliest first; returns the earliest deadline left. */
  #expire(now: number): number {
    const due: Pending[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const pending of this.#pending.values()) {
      const at = Math.min(pending.due, pending.totalDue);
      if (at <= now) due.push(pending);
      else if (at < next) next = at;
    }
    due.sort((a, b) => Math.min(a.due, a.totalDue) - Math.min(b.due, b.totalDue));
    for (const pending of due) {
      const total = pending.totalDue < pending.due;
      const error = new RequestTimeoutError(pending.method, total ? pending.total : pending.timeout, {
        server: this.#name,
        total,
      });
      this.#settle(pending, error, undefined, total ? 'maxTotalTimeout expired' : 'timeout');
    }
    return next;
  }

  #settle(pending: Pending, error: Error | undefined, result?: unknown, cancelReason?: string): void {
    if (this.#pending.get(pending.id) !== pending) return;
    this.#pending.delete(pending.id);
    if (this.#pending.size === 0) this.#deadlines.idle();
    if (pending.onAbort) pending.signal!.removeEventListener('abort', pending.onAbort);
    pending.progress?.flush();
    if (cancelReason && pending.cancelOnWire && !this.#closeReason) {
      logCancellation(this.#name ?? 'client', 'sent', pending.id, `${pending.method}: ${cancelReason}`);
      try {
        this.notify('notifications/cancelled', { requestId: pending.id, reason: cancelReason });
      } catch (sendError) {
        debug(
          '%s: could not cancel request %s: %s',
          this.#name ?? 'client',
          pending.id,
          (sendError as Error).message,
        );
      }
    }
    if (error) pending.reject(error);
    else pending.resolve(result);
  }

  #onMessage(message: JsonRpcMessage): void {
    if ('method' in message) {
      if ('id' in message) {
        if (this.onRequest) this.onRequest(message as JsonRpcRequest);
        else
          debug(
            '%s: dropped request %s from the server (%s)',
            this.#name ?? 'client',
            message.id,
            message.method,
          );
        return;
      }
      if (message.method === 'notifications/progress') this.#onProgress(message);
      this.emit('notification', message);
      return;
    }
    const id = message.id;
    const pending = id === undefined || id === null ? undefined : this.#pending.get(id);
    if (!pending) {
      if ('error' in message && (id === undefined || id === null)) {
        debug('%s: the server reported an error without an id: %j', this.#name ?? 'client', message.error);
      } else {
        debug('%s: dropped a response to unknown or settled request %s', this.#name ?? 'client', id);
      }
      return;
    }
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      this.#settle(pending, new McpError(code, text, data, { server: this.#name }));
    } else {
      this.#settle(pending, undefined, message.result);
    }
  }

  #onProgress(notification: JsonRpcNotification): void {
    const params = notification.params as unknown as ({ progressToken?: RequestId } & Progress) | undefined;
    const pending = params?.progressToken === undefined ? undefined : this.#pending.get(params.progressToken);
    if (!pending || (!pending.progress && !pending.resetTimeoutOnProgress)) {
      debug('%s: dropped progress for unknown token %s', this.#name ?? 'client', params?.progressToken);
      return;
    }
    if (pending.resetTimeoutOnProgress) pending.due = this.#deadlines.now() + pending.timeout;
    if (!pending.progress) return;
    const {
      progressToken: _token,
      _meta: _ignored,
      ...progress
    } = params as Progress & {
      progressToken: RequestId;
      _meta?: unknown;
    };
    pending.progress.push(progress, () => this.#pending.get(pending.id) === pending);
  }

  #onClose(transportReason: CloseReason): void {
    if (this.#closeReason) return;
    const reason = this.#lostReason ?? transportReason;
    this.#closeReason = reason;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.#deadlines.idle();
    for (const entry of pending) {
      if (entry.onAbort) entry.signal!.removeEventListener('abort', entry.onAbort);
      entry.reject(new ConnectionClosedError(reason, { server: this.#name, method: entry.method }));
    }
    this.emit('close', reason);
  }
}

/** A request refused before it was sent. */
function refused(error: Error): { id: undefined; promise: Promise<never> } {
  return { id: undefined, promise: Promise.reject(error) };
}

/**
 * Logs a cancellation with its reason, in either direction: `sent` (we gave up on one of our
 * requests) or `received` (the server gave up on one of its own, or ended a listen stream).
 */
export function logCancellation(
  server: string,
  direction: 'sent' | 'received',
  requestId: RequestId,
  reason: string | undefined,
): void {
  debug(
    '%s: cancellation %s for request %s: %s',
    server,
    direction,
    requestId,
    reason ?? '(no reason given)',
  );
  if (channels.cancellation.hasSubscribers) {
    channels.cancellation.publish({ server, direction, requestId, reason });
  }
}
