import { channels } from '../diagnostics.js';
import type { AuthContext } from './http.js';
import { type OAuthFetch, PrivateAddressError } from './network-policy.js';

/**
 * Which OAuth exchange an HTTP request is: the `step` of its `request` message on
 * `conduit-mcp:auth`, and `conduit_mcp.oauth.step` on its span.
 */
export type ExchangeStep = 'resource_metadata' | 'server_metadata' | 'registration' | 'token' | 'revocation';

/** A URL for messages: origin and path, never the query (it may carry a code or a state). */
export function displayUrl(url: URL | string): string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * The context's `fetch` with each request timed and published, once it has its response's headers
 * or has failed, as a `request` message on `conduit-mcp:auth`: `{ server, endpoint, event: 'request', step,
 * method, url, startTime, duration, status | error, grantType?, retry? }`. `startTime` is in ms
 * since the epoch, `duration` in ms; `url` has no query; `grantType` is the token request's
 * `grant_type`, `retry` marks the one repeat a DPoP nonce asks for. The publishing happens in the
 * caller's async context, so that a tracer can find the request span it belongs to.
 */
export function recordedFetch(
  context: Pick<AuthContext, 'fetch' | 'server' | 'endpoint'>,
  step: ExchangeStep,
  retry = false,
): OAuthFetch {
  const { fetch, server, endpoint } = context;
  return async (url, init) => {
    if (!channels.auth.hasSubscribers) return fetch(url, init);
    const started = performance.now();
    const grantType = step === 'token' ? grantTypeOf(init.body) : undefined;
    const message = {
      server,
      endpoint,
      event: 'request',
      step,
      method: init.method ?? 'GET',
      url: displayUrl(url),
      startTime: performance.timeOrigin + started,
      ...(grantType ? { grantType } : {}),
      ...(retry ? { retry } : {}),
    };
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      channels.auth.publish({ ...message, duration: performance.now() - started, error: failureName(error) });
      throw error;
    }
    channels.auth.publish({ ...message, duration: performance.now() - started, status: response.status });
    return response;
  };
}

/** The `grant_type` of a form body: a grant's name, never a credential. */
function grantTypeOf(body: RequestInit['body']): string | undefined {
  if (body instanceof URLSearchParams) return body.get('grant_type') ?? undefined;
  if (typeof body === 'string') return new URLSearchParams(body).get('grant_type') ?? undefined;
  return undefined;
}

/** A request that got no response, as a short name: the time limit, the refused address, the socket's code. */
function failureName(error: unknown): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return name;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof PrivateAddressError) return cause.code;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : (name ?? 'Error');
}
