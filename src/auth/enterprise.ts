import type { AuthorizationServer, Client as OAuthClient } from 'oauth4webapi';
import { AuthError } from '../errors.js';
import { exposeSecret } from '../secret.js';
import type { Discovered } from './discovery.js';
import { assertionGrant, type IssuedTokens } from './grants.js';
import { type AuthContext, displayUrl, type OAuth, requestOptions, toAuthError } from './http.js';
import { oauthFetch } from './network-policy.js';
import type { ResolvedOAuthOptions } from './options.js';
import type { ClientIdentity } from './registration.js';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

/**
 * Enterprise-managed authorization (SEP-990): the user's ID token exchanged at the enterprise
 * identity provider for an ID-JAG (RFC 8693) naming the MCP server's authorization server and
 * resource, then the ID-JAG traded there for an access token (the RFC 7523 JWT-bearer grant).
 * Both steps run again each time a token is needed: the ID-JAG is short-lived, the ID token is
 * read afresh.
 */
export async function enterpriseGrant(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<IssuedTokens> {
  const idJag = await exchangeIdToken(oauth, found, options, scopes, context);
  return assertionGrant(oauth, found, client, options, idJag, scopes, context);
}

/** The RFC 8693 token exchange at the identity provider; resolves with the ID-JAG. */
async function exchangeIdToken(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<string> {
  // The identity provider is the host's choice, as the MCP endpoint is: its own origin is never refused as private.
  const idpContext: AuthContext = {
    ...context,
    fetch: oauthFetch(context.allowPrivateNetwork, idpOrigin(options)),
    dpop: undefined,
  };
  const where = options.idpTokenEndpoint ? displayUrl(options.idpTokenEndpoint) : options.idpIssuer!;
  const what = `the token exchange at the identity provider ${where} (the user's ID token for an ID-JAG for ${found.issuer})`;
  try {
    const idp = await identityProvider(oauth, options, idpContext);
    const subjectToken = await readIdToken(options, context);
    const client: OAuthClient = { client_id: options.idpClientId! };
    const parameters: Record<string, string> = {
      subject_token: subjectToken,
      subject_token_type: ID_TOKEN_TYPE,
      requested_token_type: ID_JAG_TYPE,
      audience: found.issuer,
      resource: found.resource,
    };
    if (scopes.length > 0) parameters.scope = scopes.join(' ');
    const authentication = options.idpClientSecret
      ? oauth.ClientSecretBasic(await exposeSecret(options.idpClientSecret))
      : oauth.None();
    const response = await oauth.genericTokenEndpointRequest(
      idp,
      client,
      authentication,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      requestOptions(oauth, idp.token_endpoint!, idpContext, 'token'),
    );
    const answer = await oauth.processGenericTokenEndpointResponse(idp, client, response, {
      // An ID-JAG is no access token: RFC 8693 §2.2.1 has its token_type be N_A.
      recognizedTokenTypes: { n_a: () => {} },
    });
    context.secrets.add(answer.access_token);
    if (answer.issued_token_type !== ID_JAG_TYPE) {
      throw new AuthError(
        'token',
        `${what}: the identity provider issued ${typeof answer.issued_token_type === 'string' ? answer.issued_token_type : 'a token without issued_token_type'}, not an ID-JAG (${ID_JAG_TYPE})`,
        { server: context.server },
      );
    }
    return answer.access_token;
  } catch (error) {
    throw toAuthError(oauth, error, 'token', what, context, 'the identity provider');
  }
}

function idpOrigin(options: ResolvedOAuthOptions): string {
  return new URL(options.idpTokenEndpoint ?? options.idpIssuer!).origin;
}

/** The identity provider as oauth4webapi wants it: the token endpoint given, or found from the issuer. */
async function identityProvider(
  oauth: OAuth,
  options: ResolvedOAuthOptions,
  context: AuthContext,
): Promise<AuthorizationServer> {
  if (options.idpTokenEndpoint) {
    return {
      issuer: options.idpIssuer ?? options.idpTokenEndpoint.origin,
      token_endpoint: options.idpTokenEndpoint.href,
    };
  }
  const issuer = new URL(options.idpIssuer!);
  const response = await oauth.discoveryRequest(issuer, {
    algorithm: 'oidc',
    ...requestOptions(oauth, issuer, context, 'server_metadata'),
  });
  const metadata = await oauth.processDiscoveryResponse(issuer, response);
  if (!metadata.token_endpoint) {
    throw new AuthError(
      'token',
      `the identity provider ${options.idpIssuer} names no token_endpoint in its metadata`,
      {
        server: context.server,
      },
    );
  }
  return metadata;
}

async function readIdToken(options: ResolvedOAuthOptions, context: AuthContext): Promise<string> {
  let idToken: string;
  try {
    idToken = await exposeSecret(options.idToken!);
  } catch (error) {
    throw new AuthError(
      'token',
      `reading auth.idToken (the user's ID token) failed: ${error instanceof Error ? error.message : String(error)}; check the function that provides it`,
      { server: context.server },
    );
  }
  if (idToken.length === 0) {
    throw new AuthError('token', "auth.idToken gave an empty string; it must give the user's ID token", {
      server: context.server,
    });
  }
  context.secrets.add(idToken);
  return idToken;
}
