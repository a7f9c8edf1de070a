import { type CloseReason, describeCloseReason } from './close-reason/close-reason.js';

export { describeCloseReason };

const kConduitError = Symbol.for('conduit-mcp.error');

/** What every error class takes besides its message: the `cause`, and the server it concerns. */
export interface ConduitErrorOptions extends ErrorOptions {
  /** The server's name (the Client's `name`, the pool's server name); the message starts with it. */
  readonly server?: string;
}

/**
 * Base class of every error the library throws or rejects with.
 * `code` is stable: a `CONDUIT_*` string, or for {@link McpError} the server's JSON-RPC number.
 */
export abstract class ConduitError extends Error {
  /** A stable `CONDUIT_*` string naming the class of failure, or for {@link McpError} the server's JSON-RPC error number. */
  abstract readonly code: string | number;
  /**
   * The name of the server this error concerns (a Client's `name`, a pool's server name), or
   * undefined when it concerns none (a pool option, a name no server has, a Client's own options
   * before it has a name). Every error about one server carries it, whatever its class.
   */
  readonly server: string | undefined;

  /** With `options.server`, the message starts with `<server>: ` and `server` is set. */
  constructor(message: string, options?: ConduitErrorOptions) {
    super(prefixed(options?.server, message), options);
    Object.defineProperty(this, 'name', { value: new.target.name, enumerable: false, configurable: true });
    this.server = options?.server || undefined;
  }

  /** Always true: marks an error of this library, so that {@link isConduitError} recognizes one from any copy of it. */
  get [kConduitError](): true {
    return true;
  }
}

/** True for any error created by this library, even by another copy of it. */
export function isConduitError(value: unknown): value is ConduitError {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kConduitError] === true
  );
}

function prefixed(server: string | undefined, text: string): string {
  return server ? `${server}: ${text}` : text;
}

/** An option is missing or wrong. `key` names it as the user wrote it, e.g. `transport.command`. */
export class ConfigError extends ConduitError {
  readonly code = 'CONDUIT_CONFIG';
  /** Made by the library when it checks options; `key` names the option, as written. */
  constructor(
    /** The option at fault as the user wrote it, e.g. `transport.command` or `servers.github.url`. */
    readonly key: string,
    message: string,
    options?: ConduitErrorOptions,
  ) {
    super(message, options);
  }
}

/** The server process could not be started: the executable is missing or not executable, or spawn failed. */
export class SpawnError extends ConduitError {
  readonly code = 'CONDUIT_SPAWN_FAILED';
  /** Made by the stdio transport when the process cannot be started. */
  constructor(
    message: string,
    /** The command that could not be started. */
    readonly command: string,
    /** Whether starting again can help; false for a missing or non-executable file. */
    readonly retryable: boolean,
    options?: ConduitErrorOptions,
  ) {
    super(message, options);
  }
}

/** A JSON-RPC error answered by the server. `code` is the server's number. */
export class McpError extends ConduitError {
  /** The server's JSON-RPC error code, e.g. -32602 (invalid params); see {@link ErrorCodes}. */
  readonly code: number;
  /** The error's `data` as the server sent it, if any. */
  readonly data: unknown;
  /** Made from a JSON-RPC error response: its `code`, `message` and `data`. */
  constructor(code: number, message: string, data?: unknown, options?: ConduitErrorOptions) {
    super(message, options);
    this.code = code;
    this.data = data;
  }
}

/** A request got no answer within its timeout. */
export class RequestTimeoutError extends ConduitError {
  readonly code = 'CONDUIT_REQUEST_TIMEOUT';
  /** Made when a request's `timeout` (or `maxTotalTimeout`, with `options.total`) passes. */
  constructor(
    /** The request's method, e.g. `tools/call`. */
    readonly method: string,
    /** The timeout that passed, ms. */
    readonly timeout: number,
    options?: { server?: string; total?: boolean; cause?: unknown },
  ) {
    super(`${method} got no answer within ${timeout} ms${options?.total ? ' (maxTotalTimeout)' : ''}`, {
      server: options?.server,
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
  }
}

/** A request was abandoned because its `signal` aborted. `cause` is the signal's reason. */
export class AbortError extends ConduitError {
  readonly code = 'CONDUIT_ABORTED';
  /** Made when a request's signal aborts; `reason` becomes `cause`. */
  constructor(
    /** The request's method, e.g. `tools/call`. */
    readonly method: string,
    reason: unknown,
    options?: { server?: string },
  ) {
    super(`${method} was aborted`, { cause: reason, server: options?.server });
  }
}

/** The transport closed (the server exited, misbehaved, or `close()` was called). */
export class ConnectionClosedError extends ConduitError {
  readonly code = 'CONDUIT_CONNECTION_CLOSED';
  /** Made for each request pending when the connection closed; the reason's error becomes `cause`. */
  constructor(
    /** Why the connection closed. */
    readonly reason: CloseReason,
    options?: { server?: string; method?: string },
  ) {
    const what = options?.method ? `${options.method} failed: ` : '';
    // Only a reason carrying an error has a cause; `{ cause: undefined }` would still create the property.
    super(`${what}connection closed (${describeCloseReason(reason)})`, {
      server: options?.server,
      ...('error' in reason ? { cause: reason.error } : {}),
    });
  }
}

/**
 * The client was closed, or gave up reconnecting; no request can be sent any more. `cause` is
 * the last failure that explains it (the spawn error, the handshake error, the lost connection).
 */
export class ClientClosedError extends ConduitError {
  readonly code = 'CONDUIT_CLIENT_CLOSED';
  /** Made for a request on a closed client; `cause` is `options.cause`, else the reason's error. */
  constructor(
    /** The last connection's close reason, if it had one. */
    readonly reason: CloseReason | undefined,
    options?: { server?: string; method?: string; cause?: unknown },
  ) {
    const what = options?.method ? `${options.method} failed: ` : '';
    const why = reason ? `, last close: ${describeCloseReason(reason)}` : '';
    const cause = options?.cause ?? (reason && 'error' in reason ? reason.error : undefined);
    super(`${what}the client is closed${why}`, {
      server: options?.server,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

/** One connection attempt (spawn, Secret resolution, probe, handshake) took longer than `connectTimeout`. */
export class ConnectTimeoutError extends ConduitError {
  readonly code = 'CONDUIT_CONNECT_TIMEOUT';
  /** Made when a connection attempt passes `connectTimeout`. */
  constructor(
    /** The `connectTimeout` that passed, ms. */
    readonly timeout: number,
    options?: { server?: string },
  ) {
    super(
      `the connection attempt did not finish within ${timeout} ms (connectTimeout): the server did not start, or a Secret or the handshake did not complete; raise connectTimeout if the server is only slow`,
      { server: options?.server },
    );
  }
}

/** No protocol version is supported by both sides. */
export class UnsupportedProtocolVersionError extends ConduitError {
  readonly code = 'CONDUIT_UNSUPPORTED_PROTOCOL_VERSION';
  /** Made when the handshake finds no version both sides support. */
  constructor(
    /** The versions the server said it supports (may be empty). */
    readonly supported: readonly string[],
    /** The version the client asked for. */
    readonly requested: string,
    options?: { server?: string; message?: string },
  ) {
    super(
      options?.message ??
        `no common protocol version: we asked for ${requested}, the server supports ${supported.length ? supported.join(', ') : 'none it named'}`,
      { server: options?.server },
    );
  }
}

/** The server broke the protocol (e.g. an invalid resultType), so its answer cannot be used. */
export class ProtocolError extends ConduitError {
  readonly code = 'CONDUIT_PROTOCOL';
  /** Made when a server's message or answer breaks the protocol; the message says how. */
  constructor(message: string, options?: ConduitErrorOptions) {
    super(message, options);
  }
}

/** The server did not declare the capability a method needs; nothing was sent. */
export class CapabilityError extends ConduitError {
  readonly code = 'CONDUIT_CAPABILITY_MISSING';
  /** Made before sending a request whose capability the server did not declare. */
  constructor(
    /** The method that was not sent, e.g. `resources/subscribe`. */
    readonly method: string,
    message: string,
    options?: { server?: string },
  ) {
    super(message, { server: options?.server });
  }
}

/** What went wrong with one HTTP exchange. */
export type HttpErrorKind =
  /** The server answered with an HTTP error status (4xx, 5xx) and no JSON-RPC error. */
  | 'status'
  /** A 2xx answer whose Content-Type is neither JSON nor an event stream. */
  | 'content_type'
  /** A JSON body or an SSE event larger than `maxMessageBytes`. */
  | 'message_too_large'
  /** No response headers within `headersTimeout`, or the body went idle for `bodyTimeout`. */
  | 'timeout'
  /** The connection failed (refused, reset, DNS, TLS). */
  | 'network'
  /** A redirect that is not followed (another origin, or a method change). */
  | 'redirect'
  /** A response stream ended before the response to the request came. */
  | 'stream_broken'
  /** The body is not a JSON-RPC message. */
  | 'invalid_body'
  /** A 2024-11-05 HTTP+SSE `endpoint` event named a URL on another origin. */
  | 'foreign_endpoint';

/**
 * An HTTP exchange with the server failed. `status` and `bodyExcerpt` (at most 200 characters,
 * tags stripped, Secret header values redacted) tell what the server said; `eraSignal` is true
 * for the 4xx answers that tell a legacy endpoint from a modern one (never 401, 403 or 5xx).
 */
export class HttpError extends ConduitError {
  readonly code = 'CONDUIT_HTTP';
  /** Made by the HTTP transport for a failed exchange. */
  constructor(
    /** What went wrong: a status, a timeout, a size limit, the network... */
    readonly kind: HttpErrorKind,
    message: string,
    /** The exchange: URL, HTTP method, status, body excerpt, the limit that was passed. */
    readonly details: {
      /** The URL requested. */
      readonly url: string;
      /** The HTTP method, e.g. `POST`. */
      readonly method?: string;
      /** The HTTP status, when the server answered. */
      readonly status?: number;
      /** At most 200 characters of the answer's body, tags stripped, Secret header values redacted. */
      readonly bodyExcerpt?: string;
      /** The size limit that was passed, bytes (for `message_too_large`). */
      readonly limit?: number;
    },
    options?: ConduitErrorOptions,
  ) {
    super(message, options);
  }

  /** The HTTP status (`details.status`), when the server answered. */
  get status(): number | undefined {
    return this.details.status;
  }

  /** `details.bodyExcerpt`: at most 200 characters of the answer's body. */
  get bodyExcerpt(): string | undefined {
    return this.details.bodyExcerpt;
  }

  /** Whether this answer says something about the endpoint's era (400, 404, 405 and the like). */
  get eraSignal(): boolean {
    const status = this.details.status;
    if (this.kind !== 'status' || status === undefined) return false;
    return status >= 400 && status < 500 && !NO_ERA_SIGNAL.has(status);
  }
}

/** 4xx answers that say nothing about the era: authorization, client bugs, limits. */
const NO_ERA_SIGNAL = new Set([401, 403, 406, 407, 408, 413, 415, 429, 431]);

/**
 * A method was called at a time it cannot work (e.g. `send()` before `start()`), or with an
 * argument it cannot take (the call-time misuse: request options, `setLogLevel`, prompt arguments).
 */
export class UsageError extends ConduitError {
  readonly code = 'CONDUIT_USAGE';
}

/** Where an OAuth flow failed: finding the servers, getting a client ID, the user's consent, a token. */
export type AuthStep = 'discovery' | 'registration' | 'authorization' | 'token' | 'refresh';

/**
 * OAuth 2.1 authorization failed. `step` says where; `error` / `error_description` are the
 * authorization server's own (RFC 6749 §5.2), when it gave them. Never carries a token, code,
 * verifier, client secret or private key.
 */
export class AuthError extends ConduitError {
  readonly code = 'CONDUIT_AUTH';
  /** The authorization server's `error` code, e.g. `invalid_grant`. */
  readonly error: string | undefined;
  /** The authorization server's `error_description`, with any credential of ours removed. */
  readonly error_description: string | undefined;
  /** The HTTP status of the answer that failed, if one did. */
  readonly status: number | undefined;
  /** Made by the OAuth flow; `options` carries the authorization server's own error fields. */
  constructor(
    /** Where the flow failed: discovery, registration, authorization, token or refresh. */
    readonly step: AuthStep,
    message: string,
    options?: { server?: string; error?: string; error_description?: string; status?: number },
  ) {
    super(message, { server: options?.server });
    this.error = options?.error;
    this.error_description = options?.error_description;
    this.status = options?.status;
  }
}

/** Which SEP-2640 check a skill file failed. */
export type SkillCheck = 'unlisted' | 'size' | 'digest' | 'frontmatter';

/**
 * A skill file the server sent does not match the skill's `skills/list` entry (its byte size, its
 * sha256 digest, or, for a SKILL.md, its YAML frontmatter), or the file is not listed at all. The
 * content was not returned: unverified skill content is never used. `field` names the
 * frontmatter field that differs.
 */
export class SkillVerificationError extends ConduitError {
  readonly code = 'CONDUIT_SKILL_VERIFICATION';
  /** The frontmatter field that differs, for the `frontmatter` check. */
  readonly field: string | undefined;
  /** Made when a skill file fails verification; its content is not returned. */
  constructor(
    /** The skill file's URI. */
    readonly uri: string,
    /** Which check failed: `unlisted`, `size`, `digest` or `frontmatter`. */
    readonly check: SkillCheck,
    message: string,
    options?: { server?: string; field?: string; cause?: unknown },
  ) {
    super(message, {
      server: options?.server,
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
    });
    this.field = options?.field;
  }
}
