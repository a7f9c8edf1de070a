import { AuthError } from '../errors.js';
import { canonicalResource, type Discovered, fetchAuthorizationServer } from './discovery.js';
import { storedForEndpoint } from './endpoint-tokens.js';
import { withEntryLock } from './entry-lock.js';
import { oauthClient } from './grants.js';
import { type AuthContext, loadOAuth, requestOptions, toAuthError } from './http.js';
import type { LogoutOptions, LogoutResult, RevocableToken } from './logout.js';
import { oauthFetch } from './network-policy.js';
import { type ResolvedOAuthOptions, resolveOAuthOptions } from './options.js';
import { clientAuthentication, existingClient } from './registration.js';
import { resourceKey } from './token-store.js';

/** The work of `logout` (see logout.ts), loaded only when it is called. */
export async function revokeAndForget(url: string | URL, options: LogoutOptions): Promise<LogoutResult> {
  const endpoint = new URL(url);
  const resolved = resolveOAuthOptions({
    store: options.store,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    allowPrivateNetwork: options.allowPrivateNetwork,
    requestTimeout: options.requestTimeout,
  });
  const seen = await storedForEndpoint(options.store, endpoint);
  if (!seen) return { issuer: undefined, revoked: [], notRevoked: [], removed: [] };
  // Held like a refresh, so that no other holder refreshes what is being revoked.
  return withEntryLock(options.store, seen.tokensKey, () => revokeAndDelete(endpoint, options, resolved));
}

async function revokeAndDelete(
  endpoint: URL,
  options: LogoutOptions,
  resolved: ResolvedOAuthOptions,
): Promise<LogoutResult> {
  const stored = await storedForEndpoint(options.store, endpoint);
  if (!stored) return { issuer: undefined, revoked: [], notRevoked: [], removed: [] };
  const context: AuthContext = {
    server: undefined,
    requestTimeout: resolved.requestTimeout,
    secrets: new Set(),
    fetch: oauthFetch(resolved.allowPrivateNetwork, endpoint.origin),
    allowPrivateNetwork: resolved.allowPrivateNetwork,
    endpointOrigin: endpoint.origin,
  };
  const tokens: Array<[RevocableToken, string]> = [];
  if (stored.tokens?.refreshToken) tokens.push(['refresh_token', stored.tokens.refreshToken]);
  if (stored.tokens) tokens.push(['access_token', stored.tokens.accessToken]);
  for (const [, value] of tokens) context.secrets.add(value);
  const revoked: RevocableToken[] = [];
  const notRevoked: Array<{ token: RevocableToken; reason: string }> = [];
  const oauth = await loadOAuth();
  const { issuer, resource } = stored.pointer;
  let found: Discovered | undefined;
  let whyNot: string | undefined;
  try {
    const as = await fetchAuthorizationServer(oauth, issuer, context);
    found = { issuer, resource, as, scopesSupported: undefined, via: 'protected-resource-metadata' };
    if (!as.revocation_endpoint) whyNot = `${issuer} has no revocation_endpoint`;
  } catch (error) {
    whyNot = error instanceof AuthError ? error.message : String(error);
  }
  const client = found && !whyNot ? await existingClient(found, resolved, undefined) : undefined;
  if (found && !whyNot && !client) whyNot = `no client is known for ${issuer} (set clientId)`;
  for (const [token, value] of tokens) {
    if (whyNot || !found || !client) {
      notRevoked.push({ token, reason: whyNot ?? 'unknown' });
      continue;
    }
    try {
      const response = await oauth.revocationRequest(
        found.as,
        oauthClient(client),
        await clientAuthentication(oauth, client, resolved, context),
        value,
        {
          ...requestOptions(oauth, found.as.revocation_endpoint!, context, 'revocation'),
          additionalParameters: { token_type_hint: token },
        },
      );
      await oauth.processRevocationResponse(response);
      revoked.push(token);
    } catch (error) {
      const failure = toAuthError(oauth, error, 'token', `revoking the ${token.replace('_', ' ')}`, context);
      notRevoked.push({ token, reason: failure.message });
    }
  }
  const removed = [stored.tokensKey, resourceKey(canonicalResource(endpoint))];
  for (const key of removed) await options.store.delete(key);
  return { issuer, revoked, notRevoked, removed };
}
