import { AuthError } from '../errors.js';
import { authorizeWithCode } from './authorize.js';
import type { Discovered } from './discovery.js';
import type { AuthContext, OAuth } from './http.js';
import type { ResolvedOAuthOptions } from './options.js';
import { clientKey } from './token-store.js';

/** The token endpoint's answers that say the client itself is not accepted (RFC 6749 §5.2). */
export function isClientRefusal(error: unknown): error is AuthError {
  return (
    error instanceof AuthError && (error.error === 'invalid_client' || error.error === 'unauthorized_client')
  );
}

/**
 * The authorization server refused the client `refusedId`. A registration of ours (dynamic) is
 * dropped, unless another holder of the store has already replaced it, so the next attempt
 * registers again: undefined. A client the user configured (auth.clientId, or a client ID metadata
 * document) cannot be replaced: an AuthError naming it and the issuer.
 */
export async function dropRefusedClient(
  found: Discovered,
  options: ResolvedOAuthOptions,
  refusedId: string,
  refusal: AuthError,
  context: AuthContext,
): Promise<AuthError | undefined> {
  const why = `${refusal.error}${refusal.error_description ? `: ${refusal.error_description}` : ''}`;
  if (options.clientId !== undefined || refusedId === options.clientMetadataUrl?.href) {
    const fix =
      options.clientId !== undefined
        ? 'check auth.clientId (and its secret or key) with that server, or leave auth.clientId out to register a client dynamically'
        : 'check that the client ID metadata document at that URL is served and lists this redirect URI';
    return new AuthError(
      refusal.step,
      `the authorization server ${found.issuer} refused the client ${refusedId} (${why}); ${fix}`,
      {
        server: context.server,
        ...(refusal.error ? { error: refusal.error } : {}),
        ...(refusal.status !== undefined ? { status: refusal.status } : {}),
      },
    );
  }
  const key = clientKey(found.issuer);
  const stored = await options.store.get(key);
  if (stored?.kind === 'client' && stored.clientId === refusedId) await options.store.delete(key);
  return undefined;
}

/** A client refusal at the token endpoint, carrying which client was refused. */
export class RefusedClient extends Error {
  constructor(
    readonly clientId: string,
    readonly refusal: AuthError,
  ) {
    super(refusal.message);
  }
}

/**
 * The code flow; a client the token endpoint refuses is dropped and registered again, once (a
 * configured client is an AuthError at once): nobody is sent to authorize a refused client.
 */
export async function authorizeReplacingRefusedClient(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): ReturnType<typeof authorizeWithCode> {
  for (let registeredAgain = false; ; registeredAgain = true) {
    try {
      return await authorizeWithCode(oauth, found, options, scopes, context);
    } catch (error) {
      if (!(error instanceof RefusedClient)) throw error;
      const { refusal } = error;
      if (registeredAgain) {
        throw new AuthError(
          refusal.step,
          `the authorization server ${found.issuer} refused a client registered with it a moment ago (${refusal.error}); it does not accept its own dynamic registrations: register a client with it and set auth.clientId`,
          { server: context.server, ...(refusal.error ? { error: refusal.error } : {}) },
        );
      }
      const named = await dropRefusedClient(found, options, error.clientId, refusal, context);
      if (named) throw named;
    }
  }
}
