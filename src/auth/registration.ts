import { AuthError } from '../errors.js';
import { exposeSecret, type Secret } from '../secret.js';
import type { Discovered } from './discovery.js';
import { type AuthContext, type OAuth, requestOptions, toAuthError } from './http.js';
import type { ResolvedOAuthOptions } from './options.js';
import { clientKey, type StoredClient } from './token-store.js';

export type TokenEndpointAuthMethod =
  | 'none'
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'private_key_jwt';

/** The client identity used with one authorization server. */
export interface ClientIdentity {
  readonly issuer: string;
  readonly clientId: string;
  readonly authMethod: TokenEndpointAuthMethod;
  /** A pre-registered secret (a Secret) or one a registration returned (plain, from the store). */
  readonly clientSecret: Secret | string | undefined;
  readonly how: 'pre-registered' | 'metadata-document' | 'stored' | 'dynamic';
}

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/**
 * The client ID for this authorization server, in the spec's priority: a pre-registered client,
 * a client ID metadata document (when the server supports them), a registration stored for this
 * issuer, dynamic client registration; else an AuthError saying what the user must provide.
 */
export async function resolveClient(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  redirectUri: string | undefined,
  context: AuthContext,
): Promise<ClientIdentity> {
  const existing = await existingClient(found, options, redirectUri);
  if (existing) return existing;
  const { as, issuer } = found;
  if (!as.registration_endpoint) {
    throw new AuthError(
      'registration',
      `the authorization server ${issuer} offers no dynamic client registration${as.client_id_metadata_document_supported ? '' : ' and no client ID metadata documents'}; register a client with it and set auth.clientId (and auth.clientSecret if it has one)${as.client_id_metadata_document_supported ? ', or set auth.clientMetadataUrl to a client ID metadata document you host' : ''}`,
      { server: context.server },
    );
  }
  const supported = as.token_endpoint_auth_methods_supported;
  const requested: TokenEndpointAuthMethod =
    !supported || supported.includes('none') ? 'none' : secretMethod(supported);
  const redirectUris = redirectUri ? [redirectUri] : [];
  const metadata = {
    client_name: options.clientName,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: requested,
    application_type: redirectUri && !isNativeRedirect(redirectUri) ? 'web' : 'native',
  };
  let registered: Awaited<ReturnType<OAuth['processDynamicClientRegistrationResponse']>>;
  try {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      metadata,
      requestOptions(oauth, as.registration_endpoint, context, 'registration'),
    );
    registered = await oauth.processDynamicClientRegistrationResponse(await withSecretExpiry(response));
  } catch (error) {
    const failure = toAuthError(
      oauth,
      error,
      'registration',
      `dynamic client registration at ${issuer}`,
      context,
    );
    if (failure.error === 'invalid_redirect_uri') {
      throw new AuthError(
        'registration',
        `${failure.message}; the server refused the redirect URI ${redirectUri}: set auth.redirectUrl to one it accepts, or register a client yourself and set auth.clientId`,
        {
          server: context.server,
          error: failure.error,
          error_description: failure.error_description,
          status: failure.status,
        },
      );
    }
    throw failure;
  }
  const secret = typeof registered.client_secret === 'string' ? registered.client_secret : undefined;
  if (secret) context.secrets.add(secret);
  const expiresAt = registered.client_secret_expires_at;
  const method =
    (registered.token_endpoint_auth_method as TokenEndpointAuthMethod | undefined) ??
    (secret ? 'client_secret_basic' : requested);
  const stored: StoredClient = {
    kind: 'client',
    issuer,
    clientId: registered.client_id,
    ...(secret ? { clientSecret: secret } : {}),
    ...(secret && typeof expiresAt === 'number' && expiresAt > 0 ? { clientSecretExpiresAt: expiresAt } : {}),
    tokenEndpointAuthMethod: method,
    redirectUris: Array.isArray(registered.redirect_uris)
      ? (registered.redirect_uris as string[])
      : redirectUris,
  };
  await options.store.set(clientKey(issuer), stored);
  return { issuer, clientId: registered.client_id, authMethod: method, clientSecret: secret, how: 'dynamic' };
}

/**
 * The client resolveClient would use without registering one: configured, a metadata document,
 * or a stored registration that is still good (its secret not expired); else undefined. A
 * refresh uses only this: a refresh token is bound to the client it was issued to.
 */
export async function existingClient(
  found: Discovered,
  options: ResolvedOAuthOptions,
  redirectUri: string | undefined,
): Promise<ClientIdentity | undefined> {
  const { as, issuer } = found;
  if (options.clientId) {
    return {
      issuer,
      clientId: options.clientId,
      authMethod: options.privateKey
        ? 'private_key_jwt'
        : options.clientSecret
          ? secretMethod(as.token_endpoint_auth_methods_supported)
          : 'none',
      clientSecret: options.clientSecret,
      how: 'pre-registered',
    };
  }
  if (options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
    return {
      issuer,
      clientId: options.clientMetadataUrl.href,
      authMethod: 'none',
      clientSecret: undefined,
      how: 'metadata-document',
    };
  }
  const stored = await options.store.get(clientKey(issuer));
  if (
    stored?.kind === 'client' &&
    stored.issuer === issuer &&
    redirectMatches(stored.redirectUris, redirectUri) &&
    !secretExpired(stored)
  ) {
    return {
      issuer,
      clientId: stored.clientId,
      authMethod: stored.tokenEndpointAuthMethod as TokenEndpointAuthMethod,
      clientSecret: stored.clientSecret,
      how: 'stored',
    };
  }
  return undefined;
}

/** RFC 7591 §3.2.1: a secret past its `client_secret_expires_at` (epoch seconds; 0: never) is no longer accepted. */
function secretExpired(stored: StoredClient): boolean {
  return stored.clientSecretExpiresAt !== undefined && stored.clientSecretExpiresAt * 1000 <= Date.now();
}

/** `client_secret_basic` unless the server lists only `client_secret_post` (RFC 8414's default is basic). */
function secretMethod(supported: readonly string[] | undefined): TokenEndpointAuthMethod {
  if (!supported) return 'client_secret_basic';
  return SECRET_METHODS.find((method) => supported.includes(method)) ?? 'client_secret_basic';
}

/** Loopback and custom-scheme redirects belong to native apps (RFC 8252); anything else to the web. */
function isNativeRedirect(uri: string): boolean {
  const url = new URL(uri);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** A stored registration fits if it lists our redirect URI (for loopback IPs, any port: RFC 8252 §7.3). */
function redirectMatches(registered: readonly string[], redirectUri: string | undefined): boolean {
  if (!redirectUri) return true;
  const ours = new URL(redirectUri);
  return registered.some((uri) => {
    if (uri === redirectUri) return true;
    if (!URL.canParse(uri)) return false;
    const theirs = new URL(uri);
    const loopback = ours.hostname === '127.0.0.1' || ours.hostname === '[::1]';
    return (
      loopback &&
      theirs.hostname === ours.hostname &&
      theirs.protocol === ours.protocol &&
      theirs.pathname === ours.pathname
    );
  });
}

/** oauth4webapi's client authentication for a token request, with the secret or key read only now. */
export async function clientAuthentication(
  oauth: OAuth,
  client: ClientIdentity,
  options: ResolvedOAuthOptions,
  context: AuthContext,
) {
  const secretValue = async () => {
    const value =
      typeof client.clientSecret === 'string'
        ? client.clientSecret
        : client.clientSecret && (await exposeSecret(client.clientSecret));
    if (!value) {
      throw new AuthError(
        'token',
        `the client ${client.clientId} uses ${client.authMethod} but has no client secret; set auth.clientSecret`,
        {
          server: context.server,
        },
      );
    }
    context.secrets.add(value);
    return value;
  };
  switch (client.authMethod) {
    case 'client_secret_basic':
      return clientSecretBasic(client.clientId, await secretValue(), context);
    case 'client_secret_post':
      return oauth.ClientSecretPost(await secretValue());
    case 'private_key_jwt': {
      const { importSigningKey } = await import('./signing-key.js');
      if (!options.privateKey) {
        throw new AuthError(
          'token',
          `the client ${client.clientId} uses private_key_jwt; set auth.privateKey to its PEM key`,
          {
            server: context.server,
          },
        );
      }
      return oauth.PrivateKeyJwt(
        await importSigningKey(options.privateKey, options.signingAlgorithm, context),
      );
    }
    default:
      return oauth.None();
  }
}

/**
 * RFC 7591 §3.2.1 makes `client_secret_expires_at` REQUIRED beside a `client_secret`, and
 * oauth4webapi refuses a response without it; many servers (and the conformance mock) leave it
 * out. Missing, it is read as 0, the RFC's "never expires"; everything else is still checked.
 */
async function withSecretExpiry(response: Response): Promise<Response> {
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const fixed =
    typeof body === 'object' &&
    body !== null &&
    'client_secret' in body &&
    !('client_secret_expires_at' in body)
      ? JSON.stringify({ ...body, client_secret_expires_at: 0 })
      : text;
  return new Response(fixed, { status: response.status, headers: response.headers });
}

/**
 * `client_secret_basic` with RFC 6749 §2.3.1's application/x-www-form-urlencoded encoding of id
 * and secret. oauth4webapi's own also escapes characters that encoding leaves alone (`-` becomes
 * `%2D`), which servers that do not decode the header (the conformance mock among them) refuse;
 * the form encoding is the same for any server that does decode.
 */
function clientSecretBasic(clientId: string, secret: string, context: AuthContext) {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  const credentials = Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64');
  context.secrets.add(credentials);
  return (_as: unknown, _client: unknown, _body: URLSearchParams, headers: Headers) => {
    headers.set('authorization', `Basic ${credentials}`);
  };
}
