import type { Discovered } from './discovery.js';
import { enterpriseGrant } from './enterprise.js';
import { clientCredentials, type IssuedTokens, jwtBearer } from './grants.js';
import type { AuthContext, OAuth } from './http.js';
import type { ResolvedOAuthOptions } from './options.js';
import { resolveClient } from './registration.js';

/**
 * The grants without a user, run again whenever a token is needed: client_credentials with the
 * client's own credentials, jwt_bearer with a fresh read of the workload's assertion, enterprise
 * with a fresh ID token exchanged at the identity provider.
 */
export async function machineGrant(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<IssuedTokens> {
  if (options.grant === 'jwt_bearer') {
    // Without a client, the assertion is the identity.
    const client = options.clientId
      ? await resolveClient(oauth, found, options, undefined, context)
      : undefined;
    return jwtBearer(oauth, found, client, options, scopes, context);
  }
  const client = await resolveClient(oauth, found, options, undefined, context);
  if (options.grant === 'enterprise') return enterpriseGrant(oauth, found, client, options, scopes, context);
  return clientCredentials(oauth, found, client, options, scopes, context);
}
