import { ConfigError } from '../errors.js';
import { isSecret, Secret } from '../secret.js';
import { at, booleanOption, describe, integerOption, ownProperties, rejectUnknownKeys } from '../validate.js';
import { MemoryTokenStore, type TokenStore } from './token-store.js';

/** A credential given as plain text or, better, as a Secret (resolved only when it is sent). */
export type Credential = string | Secret;

/** OAuth 2.1 for an HTTP server: the user-delegated authorization code flow, or machine to machine. */
export interface OAuthOptions {
  /**
   * `'authorization_code'` (a user consents in a browser), `'client_credentials'` (machine to
   * machine, no user), `'jwt_bearer'` (a workload's identity token traded for an access token,
   * RFC 7523) or `'enterprise'` (the user's ID token exchanged at the enterprise identity provider
   * for an ID-JAG, RFC 8693, then traded for an access token, RFC 7523; SEP-990).
   * @defaultValue 'authorization_code'
   */
  readonly grant?: OAuthGrant;
  /**
   * For `'jwt_bearer'`: the workload's JWT (from its platform: Kubernetes, a cloud's metadata
   * service, CI), sent as the `assertion`. A function, or a Secret of one, is called again each
   * time a new access token is needed, so a rotated token file is picked up.
   */
  readonly assertion?: Credential | (() => string | Promise<string>);
  /**
   * For `'enterprise'` (enterprise-managed authorization, SEP-990): the signed-in user's ID token
   * from the enterprise identity provider. A function, or a Secret of one, is called again each
   * time the grant is redone, so it can hand out a fresh token.
   */
  readonly idToken?: Credential | (() => string | Promise<string>);
  /** For `'enterprise'`: the identity provider's token endpoint, where the ID token is exchanged for an ID-JAG. */
  readonly idpTokenEndpoint?: string | URL;
  /** For `'enterprise'`: the identity provider's issuer, to discover its token endpoint (instead of `idpTokenEndpoint`). */
  readonly idpIssuer?: string;
  /** For `'enterprise'`: this client's ID at the identity provider. */
  readonly idpClientId?: string;
  /** For `'enterprise'`: this client's secret at the identity provider (without it, a public client). */
  readonly idpClientSecret?: Credential;
  /**
   * DPoP (RFC 9449, SEP-1932): tokens bound to a key of this client, proved on every request.
   * Unset, DPoP is used where the authorization server's metadata lists
   * `dpop_signing_alg_values_supported`; `true` uses it with any server (ES256 where none is
   * listed); `false` never. @defaultValue undefined
   */
  readonly dpop?: boolean;
  /**
   * Where the authorization server sends the user back with the code. Without it the built-in
   * listener takes `http://127.0.0.1:<ephemeral port>/callback`. A loopback `http:` URL with a
   * port is listened on too; any other URL must come back through `onAuthorizationUrl`.
   */
  readonly redirectUrl?: string | URL;
  /**
   * Shows the user the authorization URL (opens a browser, prints it). Resolve with the URL the
   * user was sent back to, or with nothing to let the built-in loopback listener catch it.
   */
  readonly onAuthorizationUrl?: (url: URL) => Promise<string | URL | undefined> | Promise<void>;
  /** A client ID metadata document you host (an `https:` URL with a path); used when the server supports it. */
  readonly clientMetadataUrl?: string | URL;
  /** A client registered beforehand with the authorization server. */
  readonly clientId?: string;
  /** That client's secret. */
  readonly clientSecret?: Credential;
  /** That client's private key (PEM, PKCS#8 or SEC1/PKCS#1), for `private_key_jwt`. */
  readonly privateKey?: Credential;
  /** The JWS algorithm for `private_key_jwt`. @defaultValue from the key: RS256, ES256/384/512 or EdDSA */
  readonly signingAlgorithm?: string;
  /** The issuer the pre-registered client belongs to; other authorization servers never see it. */
  readonly issuer?: string;
  /** Scopes to ask for; else the challenge's, else the resource's `scopes_supported`, else none. */
  readonly scopes?: readonly string[];
  /** Where tokens and registrations are kept. @defaultValue a new in-memory store */
  readonly store?: TokenStore;
  /** `client_name` for registration. @defaultValue 'conduit-mcp' */
  readonly clientName?: string;
  /** Longest wait for the user to come back to the redirect URL, ms. @defaultValue 300000 */
  readonly authorizationTimeout?: number;
  /** Longest wait for one request to an authorization server, ms. @defaultValue 30000 */
  readonly requestTimeout?: number;
  /**
   * Let the server point OAuth requests (resource and authorization server metadata,
   * registration, tokens) at loopback, private or link-local addresses. Off, such a URL, or a
   * name that resolves to such an address, is refused (SSRF). Set it for servers on your own
   * machine or network. @defaultValue false
   */
  readonly allowPrivateNetwork?: boolean;
}

/** How the client gets its tokens; see {@link OAuthOptions.grant}. */
export type OAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'enterprise';

/** Every grant the client can use, for the checks of the config loader and the command too. */
export const OAUTH_GRANTS: readonly OAuthGrant[] = [
  'authorization_code',
  'client_credentials',
  'jwt_bearer',
  'enterprise',
];

export interface ResolvedOAuthOptions {
  readonly grant: OAuthGrant;
  readonly assertion: Secret | undefined;
  readonly idToken: Secret | undefined;
  readonly idpTokenEndpoint: URL | undefined;
  readonly idpIssuer: string | undefined;
  readonly idpClientId: string | undefined;
  readonly idpClientSecret: Secret | undefined;
  readonly dpop: boolean | undefined;
  readonly redirectUrl: URL | undefined;
  readonly onAuthorizationUrl: OAuthOptions['onAuthorizationUrl'];
  readonly clientMetadataUrl: URL | undefined;
  readonly clientId: string | undefined;
  readonly clientSecret: Secret | undefined;
  readonly privateKey: Secret | undefined;
  readonly signingAlgorithm: string | undefined;
  readonly issuer: string | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly store: TokenStore;
  readonly clientName: string;
  readonly authorizationTimeout: number;
  readonly requestTimeout: number;
  readonly allowPrivateNetwork: boolean;
}

const KEYS = [
  'grant',
  'assertion',
  'idToken',
  'idpTokenEndpoint',
  'idpIssuer',
  'idpClientId',
  'idpClientSecret',
  'dpop',
  'redirectUrl',
  'onAuthorizationUrl',
  'clientMetadataUrl',
  'clientId',
  'clientSecret',
  'privateKey',
  'signingAlgorithm',
  'issuer',
  'scopes',
  'store',
  'clientName',
  'authorizationTimeout',
  'requestTimeout',
  'allowPrivateNetwork',
] as const;

/** True when `auth` asks for OAuth (rather than `{ bearer }`). */
export function isOAuthOptions(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !('bearer' in value);
}

/** Validates OAuthOptions in one pass; every problem throws ConfigError naming the key. */
export function resolveOAuthOptions(raw: unknown, prefix = 'auth'): ResolvedOAuthOptions {
  const input = ownProperties(raw, prefix);
  rejectUnknownKeys(input, KEYS, prefix, { client_id: 'clientId', client_secret: 'clientSecret' });
  const grant = (input.grant ?? 'authorization_code') as OAuthGrant;
  if (!OAUTH_GRANTS.includes(grant)) {
    throw new ConfigError(
      at(prefix, 'grant'),
      `${at(prefix, 'grant')} must be 'authorization_code', 'client_credentials', 'jwt_bearer' or 'enterprise', got ${describe(grant)}`,
    );
  }
  const assertion =
    typeof input.assertion === 'function'
      ? new Secret(input.assertion as () => string | Promise<string>)
      : credential(input.assertion, at(prefix, 'assertion'));
  if (grant === 'jwt_bearer' && !assertion) {
    throw new ConfigError(
      at(prefix, 'assertion'),
      `${at(prefix, 'grant')} 'jwt_bearer' needs ${at(prefix, 'assertion')}: the workload's JWT, as a Secret or a function returning it`,
    );
  }
  if (grant !== 'jwt_bearer' && assertion) {
    throw new ConfigError(
      at(prefix, 'assertion'),
      `${at(prefix, 'assertion')} is only used with ${at(prefix, 'grant')} 'jwt_bearer'; set the grant or drop the assertion`,
    );
  }
  const clientId = optionalString(input.clientId, at(prefix, 'clientId'));
  const clientSecret = credential(input.clientSecret, at(prefix, 'clientSecret'));
  const privateKey = credential(input.privateKey, at(prefix, 'privateKey'));
  if ((clientSecret || privateKey) && !clientId) {
    const key = at(prefix, clientSecret ? 'clientSecret' : 'privateKey');
    throw new ConfigError(key, `${key} needs ${at(prefix, 'clientId')}, the client it belongs to`);
  }
  if (grant === 'client_credentials' && !(clientId && (clientSecret || privateKey))) {
    throw new ConfigError(
      at(prefix, clientId ? 'clientSecret' : 'clientId'),
      `${at(prefix, 'grant')} 'client_credentials' needs ${at(prefix, 'clientId')} and either ${at(prefix, 'clientSecret')} or ${at(prefix, 'privateKey')}`,
    );
  }
  const enterprise = enterpriseOptions(input, grant, clientId, prefix);
  const onAuthorizationUrl = input.onAuthorizationUrl;
  if (onAuthorizationUrl !== undefined && typeof onAuthorizationUrl !== 'function') {
    throw new ConfigError(
      at(prefix, 'onAuthorizationUrl'),
      `${at(prefix, 'onAuthorizationUrl')} must be a function (url) => Promise<redirect URL | undefined>, got ${describe(onAuthorizationUrl)}`,
    );
  }
  const store = input.store ?? new MemoryTokenStore();
  if (!isTokenStore(store)) {
    throw new ConfigError(
      at(prefix, 'store'),
      `${at(prefix, 'store')} must be a TokenStore (get, set and delete methods), got ${describe(store)}`,
    );
  }
  return {
    grant,
    assertion,
    ...enterprise,
    dpop: input.dpop === undefined ? undefined : booleanOption(input.dpop, at(prefix, 'dpop')),
    redirectUrl: optionalUrl(input.redirectUrl, at(prefix, 'redirectUrl'), ['http:', 'https:']),
    onAuthorizationUrl: onAuthorizationUrl as OAuthOptions['onAuthorizationUrl'],
    clientMetadataUrl: clientMetadataUrl(input.clientMetadataUrl, at(prefix, 'clientMetadataUrl')),
    clientId,
    clientSecret,
    privateKey,
    signingAlgorithm: optionalString(input.signingAlgorithm, at(prefix, 'signingAlgorithm')),
    issuer: optionalString(input.issuer, at(prefix, 'issuer')),
    scopes: scopes(input.scopes, at(prefix, 'scopes')),
    store,
    clientName: optionalString(input.clientName, at(prefix, 'clientName')) ?? 'conduit-mcp',
    authorizationTimeout: integerOption(
      input.authorizationTimeout ?? 300_000,
      at(prefix, 'authorizationTimeout'),
      'ms',
      1,
    ),
    requestTimeout: integerOption(input.requestTimeout ?? 30_000, at(prefix, 'requestTimeout'), 'ms', 1),
    allowPrivateNetwork: booleanOption(input.allowPrivateNetwork ?? false, at(prefix, 'allowPrivateNetwork')),
  };
}

type EnterpriseOptions = Pick<
  ResolvedOAuthOptions,
  'idToken' | 'idpTokenEndpoint' | 'idpIssuer' | 'idpClientId' | 'idpClientSecret'
>;

/** The identity provider's side of grant 'enterprise': all of it with that grant, none without. */
function enterpriseOptions(
  input: Record<string, unknown>,
  grant: OAuthGrant,
  clientId: string | undefined,
  prefix: string,
): EnterpriseOptions {
  const resolved: EnterpriseOptions = {
    idToken:
      typeof input.idToken === 'function'
        ? new Secret(input.idToken as () => string | Promise<string>)
        : credential(input.idToken, at(prefix, 'idToken')),
    idpTokenEndpoint: optionalUrl(input.idpTokenEndpoint, at(prefix, 'idpTokenEndpoint'), [
      'http:',
      'https:',
    ]),
    // Kept as written: discovery compares the metadata's `issuer` with it exactly.
    idpIssuer: optionalUrl(input.idpIssuer, at(prefix, 'idpIssuer'), ['http:', 'https:'])
      ? String(input.idpIssuer)
      : undefined,
    idpClientId: optionalString(input.idpClientId, at(prefix, 'idpClientId')),
    idpClientSecret: credential(input.idpClientSecret, at(prefix, 'idpClientSecret')),
  };
  if (grant !== 'enterprise') {
    const stray = (Object.keys(resolved) as (keyof EnterpriseOptions)[]).find(
      (key) => resolved[key] !== undefined,
    );
    if (stray) {
      throw new ConfigError(
        at(prefix, stray),
        `${at(prefix, stray)} is only used with ${at(prefix, 'grant')} 'enterprise'; set the grant or drop it`,
      );
    }
    return resolved;
  }
  const missing = !resolved.idToken
    ? ['idToken', "the user's ID token from the identity provider, as a Secret or a function returning it"]
    : !resolved.idpTokenEndpoint && !resolved.idpIssuer
      ? ['idpTokenEndpoint', "the identity provider's token endpoint (or auth.idpIssuer to discover it)"]
      : !resolved.idpClientId
        ? ['idpClientId', "this client's ID at the identity provider"]
        : !clientId
          ? ['clientId', "this client's ID at the MCP server's authorization server (the ID-JAG names it)"]
          : undefined;
  if (missing) {
    throw new ConfigError(
      at(prefix, missing[0]!),
      `${at(prefix, 'grant')} 'enterprise' needs ${at(prefix, missing[0]!)}: ${missing[1]}`,
    );
  }
  return resolved;
}

function isTokenStore(value: unknown): value is TokenStore {
  const store = value as Partial<TokenStore> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.get === 'function' &&
    typeof store.set === 'function' &&
    typeof store.delete === 'function'
  );
}

function optionalString(value: unknown, key: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.length > 0) return value;
  throw new ConfigError(key, `${key} must be a non-empty string, got ${describe(value)}`);
}

function credential(value: unknown, key: string): Secret | undefined {
  if (value === undefined) return undefined;
  if (isSecret(value)) return value;
  if (typeof value === 'string' && value.length > 0) return new Secret(value);
  throw new ConfigError(key, `${key} must be a Secret (or a non-empty string), got ${describe(value)}`);
}

function optionalUrl(value: unknown, key: string, protocols: readonly string[]): URL | undefined {
  if (value === undefined) return undefined;
  const text = value instanceof URL ? value.href : value;
  if (typeof text !== 'string' || !URL.canParse(text)) {
    throw new ConfigError(key, `${key} must be an absolute URL, got ${describe(value)}`);
  }
  const url = new URL(text);
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(key, `${key} must use ${protocols.join(' or ')}, got ${url.protocol}`);
  }
  return url;
}

function clientMetadataUrl(value: unknown, key: string): URL | undefined {
  const url = optionalUrl(value, key, ['https:']);
  if (url && (url.pathname === '/' || url.hash)) {
    throw new ConfigError(
      key,
      `${key} must be an https: URL with a path and no fragment (it becomes the client_id), got ${describe(url.href)}`,
    );
  }
  return url;
}

function scopes(value: unknown, key: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (
    Array.isArray(value) &&
    value.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
  ) {
    return [...value];
  }
  throw new ConfigError(
    key,
    `${key} must be an array of scope names (printable ASCII, no spaces, quotes or backslashes), got ${describe(value)}`,
  );
}
