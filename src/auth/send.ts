import type { AuthProvider } from './provider.js';

/** What `sendWithAuthorization` needs of an answer. */
export interface ChallengeableResponse {
  readonly status: number;
  readonly wwwAuthenticate: string | readonly string[] | undefined;
  /** Drops the body before a retry. */
  discard?(): void;
}

/**
 * Sends one request with the provider's header, and on a challenge lets the provider act and
 * sends it again, at most MAX_AUTH_ATTEMPTS times. The transport's whole use of authorization.
 */
export async function sendWithAuthorization<R extends ChallengeableResponse>(
  provider: AuthProvider,
  send: (authorization: string | undefined) => Promise<R>,
  protocolVersion?: string,
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const authorization = await provider.authorizationHeader();
    const response = await send(authorization);
    if (response.status !== 401 && response.status !== 403) return response;
    let verdict: 'retry' | 'pass';
    try {
      verdict = await provider.onChallenge({
        status: response.status,
        wwwAuthenticate: response.wwwAuthenticate,
        sentAuthorization: authorization,
        attempt,
        ...(protocolVersion ? { protocolVersion } : {}),
      });
    } catch (error) {
      response.discard?.();
      throw error;
    }
    if (verdict === 'pass') return response;
    response.discard?.();
  }
}
