import type { allowInsecureRequests, customFetch } from 'oauth4webapi';
import { AuthError, type AuthStep } from '../errors.js';
import type { DPoPProver } from './dpop.js';
import { displayUrl, type ExchangeStep, recordedFetch } from './exchange.js';
import { isLoopbackName, isPrivateAddress, type OAuthFetch, PrivateAddressError } from './network-policy.js';

export type OAuth = typeof import('oauth4webapi');

let loading: Promise<OAuth> | undefined;

/** oauth4webapi, loaded on first use so that a program without OAuth never loads it. */
export function loadOAuth(): Promise<OAuth> {
  loading ??= import('oauth4webapi');
  return loading;
}

/** What every request of one flow shares: which server it is for, the time limit, what to redact. */
export interface AuthContext {
  readonly server: string | undefined;
  /** The MCP endpoint (origin and path) the flow is for, in every message: which client's it is. */
  readonly endpoint?: string;
  readonly requestTimeout: number;
  /** Values that must never appear in an error: tokens, codes, secrets. */
  readonly secrets: Set<string>;
  /** Every OAuth request goes through it: private addresses refused unless allowed. */
  readonly fetch: OAuthFetch;
  /** auth.allowPrivateNetwork: loopback, private and link-local hosts may be asked. */
  readonly allowPrivateNetwork: boolean;
  /** The MCP endpoint's origin: chosen by the user, so never refused as private. */
  readonly endpointOrigin?: string;
  /** Told when the flow starts (true) and stops (false) waiting for the user's consent. */
  readonly onUserWait?: (waiting: boolean) => void;
  /** Aborted when the transport closes: a wait for the user ends, and its listener closes. */
  readonly signal?: AbortSignal;
  /** The DPoP key the token requests of the current grant prove possession of, if DPoP is used. */
  dpop?: DPoPProver | undefined;
}

/** Largest metadata or registration document read, in bytes. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

export { displayUrl } from './exchange.js';

/**
 * An OAuth URL a server gave us, checked before anything is sent to it: `https:`, or plain
 * `http:` to a loopback host (RFC 8252 §8.3; the MCP security guide).
 */
export function checkOAuthUrl(value: unknown, what: string, step: AuthStep, context: AuthContext): URL {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new AuthError(step, `${what} is not an absolute URL`, { server: context.server });
  }
  const url = new URL(value);
  if (url.username || url.password) {
    throw new AuthError(
      step,
      `${what} (${url.protocol}//${url.host}) carries credentials in the URL; refused`,
      {
        server: context.server,
      },
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const foreign = url.origin !== context.endpointOrigin;
  const loopbackBesideLoopback =
    isLoopbackName(host) &&
    context.endpointOrigin !== undefined &&
    isLoopbackName(new URL(context.endpointOrigin).hostname);
  if (
    foreign &&
    !context.allowPrivateNetwork &&
    !loopbackBesideLoopback &&
    (isLoopbackName(host) || isPrivateAddress(host))
  ) {
    throw new AuthError(step, `${what}: ${new PrivateAddressError(host, host).message}`, {
      server: context.server,
    });
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackName(url.hostname)) return url;
  throw new AuthError(
    step,
    `${what} (${url.protocol}//${url.host}) must use https: (plain http: is accepted only for loopback hosts)`,
    { server: context.server },
  );
}

/**
 * The signal of one OAuth request: aborted after the flow's time limit, or at once when the
 * transport closes, so that a closed client leaves no discovery, registration or token request
 * running behind it.
 */
export function requestSignal(context: AuthContext): AbortSignal {
  const timeout = AbortSignal.timeout(context.requestTimeout);
  return context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
}

/** What requestOptions gives every oauth4webapi call (named, so that the .d.ts can name the symbols). */
export interface OAuthRequestOptions {
  signal: AbortSignal;
  [customFetch]: OAuthFetch;
  [allowInsecureRequests]: boolean;
}

/**
 * Options for every oauth4webapi call to `url`: the time limit, http: only for loopback, and the
 * request published as the exchange `step` (`retry`: the repeat a DPoP nonce asks for).
 */
export function requestOptions(
  oauth: OAuth,
  url: string | URL,
  context: AuthContext,
  step: ExchangeStep,
  retry = false,
): OAuthRequestOptions {
  const target = typeof url === 'string' ? new URL(url) : url;
  return {
    signal: requestSignal(context),
    [oauth.customFetch]: recordedFetch(context, step, retry),
    [oauth.allowInsecureRequests]: target.protocol === 'http:' && isLoopbackName(target.hostname),
  };
}

/**
 * GET a JSON document from an authorization or resource server, for discovery (`step` says which
 * metadata). Redirects are not followed (a metadata document that moves to another origin is a
 * document we must not trust).
 */
export async function fetchDocument(
  url: URL,
  context: AuthContext,
  step: 'resource_metadata' | 'server_metadata',
  headers: Record<string, string> = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await recordedFetch(context, step)(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      redirect: 'manual',
      signal: requestSignal(context),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    const request = `GET ${displayUrl(url)}`;
    throw new AuthError(
      'discovery',
      context.signal?.aborted
        ? `${request} stopped: the client closed`
        : timedOut
          ? `${request} got no answer within ${context.requestTimeout} ms`
          : `${request} failed: ${describeNetworkError(error)}`,
      { server: context.server },
    );
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    const location = response.headers.get('location');
    const next = location && URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    throw new AuthError(
      'discovery',
      `GET ${displayUrl(url)} was redirected (${response.status})${next ? ` to ${next.origin}` : ''}; OAuth requests are never redirected, so nothing was sent there`,
      { server: context.server, status: response.status },
    );
  }
  return response;
}

/** Reads a JSON object body of at most 1 MiB; undefined when it is not one. */
export async function readJsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause instanceof PrivateAddressError) return cause.message;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? 'unknown error';
}

/**
 * Server-supplied text for a message: control characters removed, capped, and every credential
 * of ours cut out (a hostile server may echo what we sent).
 */
export function serverText(text: unknown, context: AuthContext): string | undefined {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  let clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  for (const secret of context.secrets) {
    if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
  }
  return clean.length > 300 ? `${clean.slice(0, 297)}...` : clean;
}

/**
 * An oauth4webapi failure (or any other) as an AuthError of `step`: the server's `error` and
 * `error_description` when it sent them, never the library's `cause` (it can hold a response
 * body, the callback parameters or the request).
 */
export function toAuthError(
  oauth: OAuth,
  error: unknown,
  step: AuthStep,
  what: string,
  context: AuthContext,
  answerer = 'the authorization server',
): AuthError {
  if (error instanceof AuthError) return error;
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
    const description = serverText(error.error_description, context);
    const code = serverText(error.error, context);
    return new AuthError(
      step,
      `${what}: ${answerer} answered ${code ?? 'an error'}${description ? ` (${description})` : ''}`,
      {
        server: context.server,
        ...(code ? { error: code } : {}),
        ...(description ? { error_description: description } : {}),
        ...(error instanceof oauth.ResponseBodyError ? { status: error.status } : {}),
      },
    );
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new AuthError(step, `${what}: no answer within ${context.requestTimeout} ms`, {
      server: context.server,
    });
  }
  if (error instanceof TypeError && (error as { cause?: unknown }).cause) {
    return new AuthError(step, `${what} failed: ${describeNetworkError(error)}`, { server: context.server });
  }
  const message = serverText((error as Error)?.message, context) ?? 'unknown error';
  return new AuthError(step, `${what}: ${message}`, { server: context.server });
}
