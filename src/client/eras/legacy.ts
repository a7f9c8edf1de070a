import { debug } from '../../diagnostics.js';
import { ConnectionClosedError, McpError, UnsupportedProtocolVersionError } from '../../errors.js';
import { INTERNAL_ERROR, METHOD_NOT_FOUND, URL_ELICITATION_REQUIRED } from '../../jsonrpc/error-codes.js';
import type { JsonObject, JsonRpcNotification, JsonRpcRequest, RequestId } from '../../jsonrpc/messages.js';
import type { LogLevel } from '../../protocol/meta.js';
import { type Implementation, INPUT_METHODS, type ServerCapabilities } from '../../protocol/types.js';
import { eraOf } from '../../protocol/versions.js';
import { type Connection, type InternalRequestOptions, logCancellation } from '../connection.js';
import { loggingUnsupported } from '../log-level.js';
import { urlElicitationsOf } from './elicitation.js';
import { isInputMethod, MAX_HANDLER_RUNS, runInputHandler } from './handlers.js';
import type { EraMemory, Session, SessionContext } from './session.js';

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo?: Implementation;
  instructions?: string;
}

/** The `initialize` request's params for one legacy version. */
export function initializeParams(context: SessionContext, version: string): JsonObject {
  return { protocolVersion: version, capabilities: context.capabilities, clientInfo: context.clientInfo };
}

/**
 * Checks the server's `initialize` answer. A version we do not implement is fatal: the
 * InitializeResult schema says the client MUST disconnect.
 */
export function readInitializeResult(result: unknown, requested: string, server: string): InitializeResult {
  const value = (result ?? {}) as Partial<InitializeResult>;
  const version = value.protocolVersion;
  if (typeof version !== 'string' || eraOf(version) !== 'legacy') {
    throw new UnsupportedProtocolVersionError(typeof version === 'string' ? [version] : [], requested, {
      server,
    });
  }
  return {
    protocolVersion: version,
    capabilities: typeof value.capabilities === 'object' && value.capabilities ? value.capabilities : {},
    serverInfo: value.serverInfo,
    instructions: typeof value.instructions === 'string' ? value.instructions : undefined,
  };
}

/**
 * The legacy era (2025-11-25 and earlier): the `initialize` handshake has been done on this
 * connection; requests go as they are; the server's own requests are answered through the
 * handlers (ping, roots, sampling, elicitation) or with -32601.
 */
export class LegacySession implements Session {
  readonly era = 'legacy' as const;
  readonly changeNotifications = 'unsolicited' as const;
  readonly protocolVersion: string;
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  readonly #connection: Connection;
  readonly #context: SessionContext;
  /** Server requests being answered, by id, so a server cancellation can stop them. */
  /** Made on the first server request (as is #urlElicitations): most sessions get none. */
  #answering: Map<RequestId, AbortController> | undefined;
  /** URL elicitations a -32042 asked for, by elicitationId, until notifications/elicitation/complete. */
  #urlElicitations: Map<string, () => void> | undefined;

  constructor(connection: Connection, context: SessionContext, initialized: InitializeResult) {
    this.#connection = connection;
    this.#context = context;
    this.protocolVersion = initialized.protocolVersion;
    this.serverInfo = initialized.serverInfo;
    this.serverCapabilities = initialized.capabilities;
    this.instructions = initialized.instructions;
    connection.transport.setProtocolVersion?.(initialized.protocolVersion);
    connection.onRequest = (request) => this.answer(request);
    connection.on('notification', this.#onNotification);
    connection.on('close', () => this.dispose()); // 'close' comes once: no once() wrapper
  }

  /**
   * Sends `notifications/initialized`, then the wanted log level without waiting for it: setting
   * the level is optional, so a server that refuses it stays connected (a `'warning'`).
   */
  finishHandshake(): void {
    this.#connection.notify('notifications/initialized');
    const level = this.#context.logLevel();
    if (!level) return;
    this.applyLogLevel(level).catch((error: Error) => {
      if (error instanceof ConnectionClosedError) return;
      const name = this.#context.name;
      this.#context.warn({
        type: 'log_level_refused',
        message: `${name}: logging/setLevel ${level} failed (${error.message}); connected without a log level`,
        error,
      });
    });
  }

  get memory(): EraMemory {
    return { era: 'legacy', version: this.protocolVersion };
  }

  request(method: string, params?: JsonObject, options?: InternalRequestOptions): Promise<unknown> {
    const sent = this.#connection.request(method, params, options);
    // Without URL elicitation declared, a -32042 is the caller's error as it is: no wrapper.
    if (!this.#context.handlers.elicitation || !this.#context.elicitationModes?.includes('url')) return sent;
    return sent.catch((error: unknown) => this.#retryAfterUrlElicitations(error, method, params, options));
  }

  /**
   * -32042: the server wants URL elicitations completed first. With URL mode declared, each goes
   * to handlers.elicitation; once every accepted one is complete, the request is retried once.
   */
  async #retryAfterUrlElicitations(
    error: unknown,
    method: string,
    params: JsonObject | undefined,
    options: InternalRequestOptions | undefined,
  ): Promise<unknown> {
    if (!(error instanceof McpError) || error.code !== URL_ELICITATION_REQUIRED) throw error;
    await this.#completeUrlElicitations(error, options);
    return this.#connection.request(method, params, options);
  }

  async #completeUrlElicitations(
    error: McpError,
    options: InternalRequestOptions | undefined,
  ): Promise<void> {
    const elicitations = urlElicitationsOf(error);
    if (!elicitations) throw error;
    const timeout = options?.timeout ?? this.#context.requestTimeout;
    const signal = AbortSignal.any([
      AbortSignal.timeout(timeout),
      ...(options?.signal ? [options.signal] : []),
    ]);
    const waits: Array<Promise<void>> = [];
    for (const elicitation of elicitations) {
      const completed = new Promise<void>((resolve, reject) => {
        this.#urlElicitations ??= new Map();
        this.#urlElicitations.set(elicitation.elicitationId, resolve);
        signal.addEventListener('abort', () => reject(error), { once: true });
      });
      completed.catch(() => {});
      const answer = (await runInputHandler(this.#context, 'elicitation/create', elicitation, signal)) as {
        action: string;
      };
      if (answer.action !== 'accept') {
        this.#urlElicitations?.delete(elicitation.elicitationId);
        throw error;
      }
      waits.push(completed);
    }
    try {
      await Promise.all(waits);
    } finally {
      for (const elicitation of elicitations) this.#urlElicitations?.delete(elicitation.elicitationId);
    }
  }

  notify(method: string, params?: JsonObject): void {
    this.#connection.notify(method, params);
  }

  abandon(id: string | number, error: Error): void {
    this.#connection.abandon(id, error);
  }

  /** Legacy results carry no freshness: nothing is cached. */
  isCacheable(_method: string): boolean {
    return false;
  }

  mayCache(_result: unknown): boolean {
    return false;
  }

  async applyLogLevel(level: LogLevel, options?: InternalRequestOptions): Promise<void> {
    if (!this.serverCapabilities.logging) {
      this.#context.warn(loggingUnsupported(this.#context.name, level));
      return;
    }
    await this.#connection.request('logging/setLevel', { level }, options);
  }

  /** Answers one server request. Ids may be 0; an unknown method gets -32601. */
  answer(request: JsonRpcRequest): void {
    const { id, method } = request;
    if (method === 'ping') {
      this.#connection.respond(id, { result: {} });
      return;
    }
    if (!isInputMethod(method)) {
      this.#connection.respond(id, {
        error: { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` },
      });
      return;
    }
    if (!this.#context.handlers[INPUT_METHODS[method]]) {
      this.#connection.respond(id, {
        error: { code: METHOD_NOT_FOUND, message: `${method} is not supported by this client` },
      });
      return;
    }
    if ((this.#answering?.size ?? 0) >= MAX_HANDLER_RUNS) {
      debug(
        '%s: refused %s (id %s): %d handler runs in flight',
        this.#context.name,
        method,
        id,
        MAX_HANDLER_RUNS,
      );
      this.#connection.respond(id, {
        error: {
          code: INTERNAL_ERROR,
          message: `the client is already answering ${MAX_HANDLER_RUNS} requests from this server; retry later`,
        },
      });
      return;
    }
    const controller = new AbortController();
    this.#answering ??= new Map();
    const answering = this.#answering;
    answering.set(id, controller);
    runInputHandler(this.#context, method, request.params, controller.signal).then(
      (result) => {
        if (answering.get(id) !== controller) return;
        answering.delete(id);
        if (typeof result !== 'object' || result === null) {
          const message = `the client's ${INPUT_METHODS[method]} handler returned ${result === null ? 'null' : typeof result}, not a result object`;
          this.#connection.respond(id, { error: { code: INTERNAL_ERROR, message } });
          return;
        }
        this.#connection.respond(id, { result });
      },
      (error: unknown) => {
        if (answering.get(id) !== controller) return;
        answering.delete(id);
        const code = error instanceof McpError ? error.code : INTERNAL_ERROR;
        const message = error instanceof Error ? error.message : String(error);
        this.#connection.respond(id, { error: { code, message } });
      },
    );
  }

  readonly #onNotification = (notification: JsonRpcNotification) => {
    if (notification.method === 'notifications/elicitation/complete') {
      // Unknown or already completed ids are ignored.
      const id = (notification.params as { elicitationId?: unknown } | undefined)?.elicitationId;
      const complete = typeof id === 'string' ? this.#urlElicitations?.get(id) : undefined;
      if (complete) {
        this.#urlElicitations?.delete(id as string);
        complete();
      }
      return;
    }
    if (notification.method !== 'notifications/cancelled') return;
    const { requestId, reason } = (notification.params ?? {}) as { requestId?: RequestId; reason?: unknown };
    const controller = requestId === undefined ? undefined : this.#answering?.get(requestId);
    if (requestId !== undefined) {
      const why = typeof reason === 'string' ? reason : undefined;
      logCancellation(
        this.#context.name,
        'received',
        requestId,
        controller ? why : `${why ?? 'no reason'} (ignored: not a request the client is answering)`,
      );
    }
    // Invalid cancellations (unknown or finished ids, no id) are ignored.
    if (!controller) return;
    // The server gave up on its request: stop the handler and send no answer.
    this.#answering?.delete(requestId!);
    controller.abort(new Error(`the server cancelled its request ${requestId}`));
  };

  dispose(): void {
    this.#connection.off('notification', this.#onNotification);
    const answering = this.#answering;
    if (answering === undefined) return;
    for (const controller of answering.values()) controller.abort(new Error('the connection closed'));
    answering.clear();
  }
}
