import { AuthError } from '../errors.js';
import { type BearerChallenge, parseChallenges } from './challenge.js';

/** A 401 or 403 answer from the protected resource, as the transport saw it. */
export interface ChallengeInput {
  readonly status: number;
  /** The `WWW-Authenticate` header value(s). */
  readonly wwwAuthenticate: string | readonly string[] | undefined;
  /** The `Authorization` value the rejected request carried (what `authorizationHeader()` gave), if any. */
  readonly sentAuthorization: string | undefined;
  /** How many challenges this same request has already been through (0 on the first). */
  readonly attempt: number;
  /** The protocol version in use or being asked for, sent to 2025-03-26 servers during discovery. */
  readonly protocolVersion?: string;
}

/** The headers one request carries: `authorization`, and with a DPoP-bound token its `dpop` proof. */
export type AuthHeaders = Readonly<Record<string, string>>;

/** What a transport needs from authorization: headers before each request, and a reaction to a challenge. */
export interface AuthProvider {
  /** The `Authorization` header value for the next request to the endpoint's origin, or undefined. */
  authorizationHeader(): Promise<string | undefined>;
  /** The headers for a `method` request to `url` (the endpoint's origin): a DPoP token gets a fresh proof. */
  requestHeaders(method: string, url: URL): Promise<AuthHeaders | undefined>;
  /** Keeps the `DPoP-Nonce` a response from `url` carried, for the next proofs to its origin. */
  rememberNonce(url: URL, nonce: string): void;
  /**
   * Handles a 401, or a 403 `insufficient_scope`: resolves `'retry'` once a token worth retrying
   * with is held, `'pass'` when the answer is not an authorization matter (another 403), and
   * rejects with an AuthError when authorization failed or `attempt` reached MAX_AUTH_ATTEMPTS (provider.ts).
   */
  onChallenge(input: ChallengeInput): Promise<'retry' | 'pass'>;
  /** True for URLs the token may be sent to: the endpoint's origin only. */
  appliesTo(url: URL): boolean;
}

/** What `sendWithAuthorization` needs of an answer. */
export interface ChallengeableResponse {
  readonly status: number;
  readonly wwwAuthenticate: string | readonly string[] | undefined;
  /** The `DPoP-Nonce` header, if the server sent one. */
  readonly dpopNonce?: string | undefined;
  /** Drops the body before a retry. */
  discard?(): void;
}

/** The request `sendWithAuthorization` sends, which its DPoP proof names. */
export interface AuthorizedRequest {
  readonly method: string;
  readonly url: URL;
}

/**
 * Sends one request with the provider's headers, and on a challenge lets the provider act and
 * sends it again, at most MAX_AUTH_ATTEMPTS times. A 401 `use_dpop_nonce` with a nonce is sent
 * again once with it, without counting as an authorization (RFC 9449 §9). The transport's whole
 * use of authorization.
 */
export async function sendWithAuthorization<R extends ChallengeableResponse>(
  provider: AuthProvider,
  send: (
    headers: AuthHeaders | undefined,
    reprove: (url: URL) => Promise<AuthHeaders | undefined>,
  ) => Promise<R>,
  request: AuthorizedRequest,
  protocolVersion?: string,
): Promise<R> {
  let nonceRetried = false;
  for (let attempt = 0; ; ) {
    const headers = await provider.requestHeaders(request.method, request.url);
    const response = await send(headers, (url) => provider.requestHeaders(request.method, url));
    if (response.dpopNonce) provider.rememberNonce(request.url, response.dpopNonce);
    if (response.status !== 401 && response.status !== 403) return response;
    if (!nonceRetried && headers?.dpop && response.dpopNonce && asksForNonce(response.wwwAuthenticate)) {
      nonceRetried = true;
      response.discard?.();
      continue;
    }
    let verdict: 'retry' | 'pass';
    try {
      verdict = await provider.onChallenge({
        status: response.status,
        wwwAuthenticate: response.wwwAuthenticate,
        sentAuthorization: headers?.authorization,
        attempt,
        ...(protocolVersion ? { protocolVersion } : {}),
      });
    } catch (error) {
      response.discard?.();
      throw error;
    }
    if (verdict === 'pass') return response;
    response.discard?.();
    attempt++;
  }
}

/** True for a `DPoP error="use_dpop_nonce"` challenge. */
export function asksForNonce(header: string | readonly string[] | undefined): boolean {
  return parseChallenges(header).some((c) => c.scheme === 'dpop' && c.params.error === 'use_dpop_nonce');
}

/** A `use_dpop_nonce` challenge that one retry with the server's nonce did not settle (or that gave no nonce). */
export function nonceRefused(server: string | undefined): AuthError {
  return new AuthError(
    'authorization',
    'the server still asks for a DPoP nonce after one retry with the nonce it gave (or it gave none in a DPoP-Nonce header)',
    { server, status: 401, error: 'use_dpop_nonce' },
  );
}

/** The AuthError of a request that went through MAX_AUTH_ATTEMPTS challenges and is still refused. */
export function attemptsExhausted(
  input: ChallengeInput,
  challenge: BearerChallenge | undefined,
  server: string | undefined,
): AuthError {
  return new AuthError(
    'authorization',
    input.status === 401
      ? `the server still answers 401 after ${input.attempt} authorizations; check that it accepts tokens from its own authorization server`
      : `the server still answers 403 insufficient_scope${challenge?.scope ? ` (it asks for ${challenge.scope.join(' ')})` : ''} after ${input.attempt} authorization attempts; the authorization server does not grant those scopes to this client`,
    { server, status: input.status, ...(challenge?.error ? { error: challenge.error } : {}) },
  );
}
