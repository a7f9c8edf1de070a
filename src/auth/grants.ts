import type { AuthorizationServer, Client as OAuthClient, TokenEndpointResponse } from 'oauth4webapi';
import { AuthError, type AuthStep } from '../errors.js';
import { exposeSecret } from '../secret.js';
import type { Discovered } from './discovery.js';
import { type AuthContext, type OAuth, requestOptions, toAuthError } from './http.js';
import type { ResolvedOAuthOptions } from './options.js';
import { type ClientIdentity, clientAuthentication } from './registration.js';

/** A token response reduced to what we keep. */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken: string | undefined;
  /** Lifetime in seconds, if the server said. */
  readonly expiresIn: number | undefined;
}

/** The refresh point, epoch ms: 10% of the lifetime (at most 30 s) before expiry. */
export function refreshAt(expiresIn: number | undefined, now: number): number | undefined {
  if (expiresIn === undefined) return undefined;
  return now + expiresIn * 1000 - Math.min(30_000, expiresIn * 100);
}

export function oauthClient(identity: ClientIdentity): OAuthClient {
  return { client_id: identity.clientId, token_endpoint_auth_method: identity.authMethod };
}

/**
 * One request to the token endpoint (`exchange` sends it and processes the answer), its tokens
 * checked; any failure an AuthError of `step` naming `what`.
 */
async function tokenRequest(
  oauth: OAuth,
  as: AuthorizationServer,
  step: AuthStep,
  what: string,
  context: AuthContext,
  exchange: (endpoint: string, retry: boolean) => Promise<TokenEndpointResponse>,
): Promise<IssuedTokens> {
  if (!as.token_endpoint) {
    throw new AuthError(step, `the authorization server ${as.issuer} has no token_endpoint`, {
      server: context.server,
    });
  }
  try {
    let response: TokenEndpointResponse;
    try {
      response = await exchange(as.token_endpoint, false);
    } catch (error) {
      // The handle kept the nonce of the refusal: one more request carries it (RFC 9449 §8).
      if (!context.dpop || !oauth.isDPoPNonceError(error)) throw error;
      response = await exchange(as.token_endpoint, true);
    }
    return issuedTokens(response, step, context);
  } catch (error) {
    throw toAuthError(oauth, error, step, what, context);
  }
}

/** requestOptions for a token request: with the DPoP handle when the grant proves a key. */
function tokenRequestOptions(oauth: OAuth, endpoint: string, context: AuthContext, retry: boolean) {
  return {
    ...requestOptions(oauth, endpoint, context, 'token', retry),
    ...(context.dpop ? { DPoP: context.dpop.handle } : {}),
  };
}

/** Checks a token response and records its credentials as secrets before anything can quote them. */
export function issuedTokens(
  response: TokenEndpointResponse,
  step: AuthStep,
  context: AuthContext,
): IssuedTokens {
  context.secrets.add(response.access_token);
  if (response.refresh_token) context.secrets.add(response.refresh_token);
  const type = response.token_type.toLowerCase();
  if (type !== 'bearer' && !(type === 'dpop' && context.dpop)) {
    throw new AuthError(
      step,
      `the authorization server issued a ${response.token_type} token; only Bearer tokens${context.dpop ? ' and DPoP tokens' : ' (and DPoP tokens, when asked for with a proof)'} are supported`,
      {
        server: context.server,
      },
    );
  }
  return {
    accessToken: response.access_token,
    tokenType: type === 'dpop' ? 'DPoP' : 'Bearer',
    refreshToken: response.refresh_token,
    expiresIn: typeof response.expires_in === 'number' ? response.expires_in : undefined,
  };
}

/** Redeems an authorization code (with its PKCE verifier and the `resource`) at the token endpoint. */
export async function redeemCode(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity,
  options: ResolvedOAuthOptions,
  callbackParameters: URLSearchParams,
  redirectUri: string,
  verifier: string,
  context: AuthContext,
): Promise<IssuedTokens> {
  const what = `the token request to ${found.issuer}`;
  return tokenRequest(oauth, found.as, 'token', what, context, async (endpoint, retry) => {
    const response = await oauth.authorizationCodeGrantRequest(
      found.as,
      oauthClient(client),
      await clientAuthentication(oauth, client, options, context),
      callbackParameters,
      redirectUri,
      verifier,
      {
        ...tokenRequestOptions(oauth, endpoint, context, retry),
        additionalParameters: { resource: found.resource },
      },
    );
    return oauth.processAuthorizationCodeResponse(found.as, oauthClient(client), response);
  });
}

/** Machine to machine: the client_credentials grant, with the `resource` and the scopes asked. */
export async function clientCredentials(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<IssuedTokens> {
  const parameters: Record<string, string> = { resource: found.resource };
  if (scopes.length > 0) parameters.scope = scopes.join(' ');
  const what = `the client_credentials request to ${found.issuer}`;
  return tokenRequest(oauth, found.as, 'token', what, context, async (endpoint, retry) => {
    const response = await oauth.clientCredentialsGrantRequest(
      found.as,
      oauthClient(client),
      await clientAuthentication(oauth, client, options, context),
      parameters,
      tokenRequestOptions(oauth, endpoint, context, retry),
    );
    return oauth.processClientCredentialsResponse(found.as, oauthClient(client), response);
  });
}

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Workload identity federation: the RFC 7523 JWT-bearer grant, the workload's JWT (read afresh
 * from `options.assertion` on each call) as the `assertion`, with the `resource` and the scopes.
 * Without a client, no client authentication and no `client_id`: the assertion is the identity.
 * A refusal (invalid_grant, invalid_scope, unauthorized_client) is an AuthError, never retried.
 */
export async function jwtBearer(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity | undefined,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<IssuedTokens> {
  let assertion: string;
  try {
    assertion = await exposeSecret(options.assertion!);
  } catch (error) {
    throw new AuthError(
      'token',
      `reading auth.assertion (the workload's JWT) failed: ${error instanceof Error ? error.message : String(error)}; check the function or file that provides it`,
      { server: context.server },
    );
  }
  if (assertion.length === 0) {
    throw new AuthError('token', "auth.assertion gave an empty string; it must give the workload's JWT", {
      server: context.server,
    });
  }
  return assertionGrant(oauth, found, client, options, assertion, scopes, context);
}

/** The RFC 7523 JWT-bearer request itself, with `assertion` (a workload's JWT, or an ID-JAG). */
export async function assertionGrant(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity | undefined,
  options: ResolvedOAuthOptions,
  assertion: string,
  scopes: readonly string[],
  context: AuthContext,
): Promise<IssuedTokens> {
  context.secrets.add(assertion);
  const what = `the jwt-bearer request to ${found.issuer}`;
  return tokenRequest(oauth, found.as, 'token', what, context, async (endpoint, retry) => {
    const parameters: Record<string, string> = { assertion, resource: found.resource };
    if (scopes.length > 0) parameters.scope = scopes.join(' ');
    const asClient = client ? oauthClient(client) : ANONYMOUS;
    const response = await oauth.genericTokenEndpointRequest(
      found.as,
      asClient,
      client ? await clientAuthentication(oauth, client, options, context) : noClientAuthentication,
      JWT_BEARER_GRANT,
      parameters,
      tokenRequestOptions(oauth, endpoint, context, retry),
    );
    return oauth.processGenericTokenEndpointResponse(found.as, asClient, response);
  });
}

/** oauth4webapi wants a client object; without a client it is only a placeholder, never sent. */
const ANONYMOUS: OAuthClient = { client_id: 'workload' };

function noClientAuthentication(): void {}

/** Trades a refresh token for new tokens; the refresh token kept when the server does not rotate it. */
export async function refresh(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity,
  options: ResolvedOAuthOptions,
  refreshToken: string,
  context: AuthContext,
): Promise<IssuedTokens> {
  const what = `refreshing the token at ${found.issuer}`;
  const tokens = await tokenRequest(oauth, found.as, 'refresh', what, context, async (endpoint, retry) => {
    const response = await oauth.refreshTokenGrantRequest(
      found.as,
      oauthClient(client),
      await clientAuthentication(oauth, client, options, context),
      refreshToken,
      {
        ...tokenRequestOptions(oauth, endpoint, context, retry),
        additionalParameters: { resource: found.resource },
      },
    );
    return oauth.processRefreshTokenResponse(found.as, oauthClient(client), response);
  });
  return tokens.refreshToken ? tokens : { ...tokens, refreshToken };
}
