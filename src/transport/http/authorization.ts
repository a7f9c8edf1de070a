import type { ResolvedOAuthOptions } from '../../auth/options.js';
import type { AuthHeaders, AuthorizedRequest, ChallengeableResponse } from '../../auth/provider.js';

/**
 * OAuth for one HTTP transport, as the Requester sees it: a wrapper around each request that
 * adds the token and answers challenges, and the values to cut out of error messages.
 */
export interface HttpAuthorization {
  /**
   * Sends `request` with the current token's headers (`authorization`, and a `dpop` proof for
   * the method and URL with a DPoP-bound token; `reprove` gives the headers for a redirect's
   * URL); on a 401 (or a 403 insufficient_scope) authorizes and sends again.
   */
  send<R extends ChallengeableResponse>(
    send: (
      headers: AuthHeaders | undefined,
      reprove: (url: URL) => Promise<AuthHeaders | undefined>,
    ) => Promise<R>,
    request: AuthorizedRequest,
    protocolVersion?: string,
  ): Promise<R>;
  /** Tokens, codes and client secrets the flow has seen so far. */
  secrets(): Iterable<string>;
}

/**
 * Loads src/auth's flow (and, at the first challenge, oauth4webapi) only now: a program that
 * configures no OAuth never loads either.
 */
export async function loadAuthorization(
  endpoint: URL,
  options: ResolvedOAuthOptions,
  server: string | undefined,
  onUserWait: (waiting: boolean) => void,
  signal: AbortSignal,
): Promise<HttpAuthorization> {
  const { OAuthProvider, sendWithAuthorization } = await import('../../auth/provider.js');
  const provider = new OAuthProvider(endpoint, options, server, { onUserWait, signal });
  return {
    send: (send, request, protocolVersion) => sendWithAuthorization(provider, send, request, protocolVersion),
    secrets: () => provider.secrets(),
  };
}
