import {
  isOAuthOptions,
  type OAuthOptions,
  type ResolvedOAuthOptions,
  resolveOAuthOptions,
} from '../../auth/options.js';
import { ConfigError } from '../../errors.js';
import { isLoopbackName } from '../../loopback.js';
import { isSecret, revealOption, type Secret } from '../../secret.js';
import {
  at,
  booleanOption,
  describe,
  integerOption,
  ownProperties,
  rejectUnknownKeys,
} from '../../validate.js';

/** A header value: plain text, or a Secret resolved when the transport starts. */
export type HeaderValue = string | Secret;

/** How to reach a remote MCP server over Streamable HTTP (or the 2024-11-05 HTTP+SSE fallback). */
export interface HttpOptions {
  /** The MCP endpoint. `https:`, or plain `http:` to a loopback host (or anywhere with `allowInsecure`). */
  readonly url: string | URL;
  /** Extra request headers; values may be Secrets. Sent only to the endpoint's origin. @defaultValue {} */
  readonly headers?: Readonly<Record<string, HeaderValue>>;
  /**
   * How the client authorizes: a static token (`{ bearer }`, sent as `Authorization: Bearer
   * <token>` on every request), or OAuth 2.1 (OAuthOptions: the flow starts at the server's first
   * 401). Either goes to the endpoint's origin only.
   */
  readonly auth?:
    | {
        /** A static token, sent as `Authorization: Bearer <token>`; prefer a Secret, which stays redacted. */
        readonly bearer: Secret | string;
      }
    | OAuthOptions;
  /** Largest JSON body or SSE event the server may send, in bytes, enforced while it arrives. @defaultValue 8388608 */
  readonly maxMessageBytes?: number;
  /** Fall back to the 2024-11-05 HTTP+SSE transport when the endpoint is neither modern nor Streamable HTTP. @defaultValue true */
  readonly legacySse?: boolean;
  /** Allow plain `http:` to a host that is not loopback. @defaultValue false */
  readonly allowInsecure?: boolean;
  /** Longest wait for the response headers of one request, ms. @defaultValue 60000 */
  readonly headersTimeout?: number;
  /** Longest silence inside a JSON response body, ms (event streams have no idle limit: requests time out). @defaultValue 60000 */
  readonly bodyTimeout?: number;
}

export interface ResolvedHttpOptions {
  readonly url: URL;
  readonly headers: ReadonlyArray<readonly [string, HeaderValue]>;
  readonly bearer: HeaderValue | undefined;
  /** OAuth 2.1, validated; its flow (and oauth4webapi) loads when the transport starts. */
  readonly oauth: ResolvedOAuthOptions | undefined;
  readonly maxMessageBytes: number;
  readonly legacySse: boolean;
  readonly allowInsecure: boolean;
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
}

export const HTTP_DEFAULTS = {
  maxMessageBytes: 8 * 1024 * 1024,
  headersTimeout: 60_000,
  bodyTimeout: 60_000,
} as const;

const HTTP_KEYS = [
  'type',
  'url',
  'headers',
  'auth',
  'maxMessageBytes',
  'legacySse',
  'allowInsecure',
  'headersTimeout',
  'bodyTimeout',
] as const;

/** Headers the transport sets itself; a user value would break the protocol. */
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);

const NO_HEADERS: ReadonlyArray<readonly [string, HeaderValue]> = Object.freeze([]);

/** RFC 9110 token characters: what a header name may hold. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Validates HttpOptions in one pass; every problem throws ConfigError naming the key. */
export function resolveHttpOptions(raw: unknown, prefix = ''): ResolvedHttpOptions {
  return resolveHttpSnapshot(ownProperties(raw, prefix), prefix);
}

/** resolveHttpOptions on a spec's own properties already copied (a Client's transport spec). */
export function resolveHttpSnapshot(input: Record<string, unknown>, prefix: string): ResolvedHttpOptions {
  rejectUnknownKeys(input, HTTP_KEYS, prefix, { endpoint: 'url', insecure: 'allowInsecure' });
  const type = input.type;
  if (type !== undefined && type !== 'http') {
    throw new ConfigError(at(prefix, 'type'), `${at(prefix, 'type')} must be 'http', got ${describe(type)}`);
  }
  // Only an absent option (undefined) takes the default: null is a wrong value like any other.
  const allowInsecure =
    input.allowInsecure !== undefined && booleanOption(input.allowInsecure, at(prefix, 'allowInsecure'));
  const oauth = isOAuthOptions(input.auth);
  const positive = (name: keyof typeof HTTP_DEFAULTS, unit: string): number =>
    input[name] === undefined ? HTTP_DEFAULTS[name] : integerOption(input[name], at(prefix, name), unit, 1);
  return {
    url: normalizeUrl(input.url, at(prefix, 'url'), allowInsecure),
    headers:
      input.headers === undefined ? NO_HEADERS : normalizeHeaders(input.headers, at(prefix, 'headers')),
    bearer: oauth || input.auth === undefined ? undefined : normalizeAuth(input.auth, at(prefix, 'auth')),
    oauth: oauth ? resolveOAuthOptions(input.auth, at(prefix, 'auth')) : undefined,
    maxMessageBytes: positive('maxMessageBytes', 'bytes'),
    legacySse: input.legacySse === undefined || booleanOption(input.legacySse, at(prefix, 'legacySse')),
    allowInsecure,
    headersTimeout: positive('headersTimeout', 'ms'),
    bodyTimeout: positive('bodyTimeout', 'ms'),
  };
}

function normalizeUrl(value: unknown, key: string, allowInsecure: boolean): URL {
  const url =
    value instanceof URL ? new URL(value.href) : typeof value === 'string' ? URL.parse(value) : null;
  if (!url) throw new ConfigError(key, `${key} must be an absolute http(s) URL, got ${describe(value)}`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(key, `${key} must use https: (or http: to a loopback host), got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new ConfigError(
      key,
      `${key} must not carry credentials; put them in transport.auth or transport.headers (as a Secret)`,
    );
  }
  if (url.protocol === 'http:' && !allowInsecure && !isLoopbackName(url.hostname)) {
    throw new ConfigError(
      key,
      `${key} uses plain http: to ${url.hostname}, which is not loopback; use https:, or set allowInsecure: true if you accept that anyone on the path can read and change the traffic`,
    );
  }
  if (url.href.includes('#')) url.hash = '';
  return url;
}

function normalizeHeaders(value: unknown, key: string): Array<readonly [string, HeaderValue]> {
  const input = ownProperties(value, key);
  const result: Array<readonly [string, HeaderValue]> = [];
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(input)) {
    const where = `${key}.${name}`;
    if (!TOKEN.test(name)) {
      throw new ConfigError(where, `${where}: ${JSON.stringify(name)} is not a valid header name`);
    }
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith('mcp-param-')) {
      throw new ConfigError(where, `${where}: the transport sets ${name} itself; remove it from ${key}`);
    }
    if (lower === 'authorization' && !isSecret(headerValue)) {
      throw new ConfigError(
        where,
        `${where} must be a Secret (or use transport.auth: { bearer: new Secret(token) }), so the token never shows in logs`,
      );
    }
    if (seen.has(lower))
      throw new ConfigError(where, `${where}: ${name} is given twice (header names ignore case)`);
    seen.add(lower);
    if (!isSecret(headerValue) && (typeof headerValue !== 'string' || /[\0\r\n]/.test(headerValue))) {
      throw new ConfigError(
        where,
        `${where} must be a string without CR, LF or NUL, or a Secret, got ${describe(headerValue)}`,
      );
    }
    result.push([name, headerValue]);
  }
  return result;
}

function normalizeAuth(value: unknown, key: string): HeaderValue {
  const input = ownProperties(value, key);
  rejectUnknownKeys(input, ['bearer'], key);
  const bearer = input.bearer;
  if (isSecret(bearer)) return bearer;
  if (typeof bearer === 'string' && bearer.length > 0 && !/[\0\r\n]/.test(bearer)) return bearer;
  throw new ConfigError(
    at(key, 'bearer'),
    `${at(key, 'bearer')} must be a Secret (or a non-empty string), got ${describe(bearer)}`,
  );
}

/**
 * Whether any credential may be configured: OAuth, a bearer token, any header at all (an API key
 * can go in a header of any name, Secret or not), or a query in the URL (it may hold a key).
 * Without one, a 401 cannot be healed by connecting again, and the message can say so.
 */
export function hasCredentials(options: ResolvedHttpOptions): boolean {
  return (
    options.oauth !== undefined ||
    options.bearer !== undefined ||
    options.headers.length > 0 ||
    options.url.search !== ''
  );
}

/**
 * Resolved options as HttpOptions again, for each transport of a Client to be built from: a copy
 * the caller can no longer change, whose OAuth settings keep the one token store they all share.
 */
export function httpOptionsOf(resolved: ResolvedHttpOptions): HttpOptions {
  return {
    url: resolved.url,
    headers: Object.fromEntries(resolved.headers),
    auth: resolved.oauth ?? (resolved.bearer === undefined ? undefined : { bearer: resolved.bearer }),
    maxMessageBytes: resolved.maxMessageBytes,
    legacySse: resolved.legacySse,
    allowInsecure: resolved.allowInsecure,
    headersTimeout: resolved.headersTimeout,
    bodyTimeout: resolved.bodyTimeout,
  };
}

/**
 * The headers every request carries, each Secret read now: the configured ones and the bearer
 * token; `secrets` lists the plain values read, to be cut out of anything quoted.
 */
export async function revealHeaders(
  options: ResolvedHttpOptions,
  /** The option key prefix with its dot (`transport.`), or empty. */
  keyPrefix: string,
  server: string | undefined,
): Promise<{ headers: Record<string, string>; secrets: string[] }> {
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, value] of options.headers) {
    let plain = value as string;
    if (isSecret(value)) {
      plain = await revealOption(value, `${keyPrefix}headers.${name}`, server);
      secrets.push(plain);
    }
    headers[name.toLowerCase()] = plain;
  }
  const bearer = options.bearer;
  if (bearer !== undefined) {
    const token = isSecret(bearer) ? await revealOption(bearer, `${keyPrefix}auth.bearer`, server) : bearer;
    secrets.push(token);
    headers.authorization = `Bearer ${token}`;
  }
  return { headers, secrets };
}
