import type { AuthorizationServer } from 'oauth4webapi';
import { AuthError } from '../errors.js';
import { NO_RESOURCE_METADATA_VERSION } from '../protocol/versions.js';
import type { BearerChallenge } from './challenge.js';
import {
  type AuthContext,
  checkOAuthUrl,
  displayUrl,
  fetchDocument,
  type OAuth,
  readJsonObject,
  toAuthError,
} from './http.js';

/** Everything discovery learnt: which authorization server issues tokens for which resource. */
export interface Discovered {
  /** The canonical resource URI sent as `resource` (RFC 8707) on every authorization and token request. */
  readonly resource: string;
  /** The authorization server's issuer, exactly as its validated metadata states it. */
  readonly issuer: string;
  readonly as: AuthorizationServer;
  /** The protected resource's `scopes_supported`, if it lists them. */
  readonly scopesSupported: readonly string[] | undefined;
  /** How the authorization server was found. */
  readonly via: 'protected-resource-metadata' | 'legacy-metadata' | 'legacy-default-endpoints';
  /** The protected resource metadata's URL, when the authorization server was found through it. */
  readonly metadataUrl?: string;
}

/**
 * What a 401 or 403 is handled with. A request's first 401 whose challenge names no resource
 * metadata, or the document found before, reuses what was discovered then: a token refused
 * mid-session (expired early, revoked) is refreshed without fetching the metadata again. Anything
 * else discovers anew (a request refused again may mean the server moved to another authorization
 * server).
 */
export function discoverFor(
  oauth: OAuth,
  endpoint: URL,
  known: Discovered | undefined,
  input: { readonly status: number; readonly attempt: number; readonly protocolVersion?: string },
  challenge: BearerChallenge | undefined,
  context: AuthContext,
): Promise<Discovered> {
  if (known && input.status === 401 && input.attempt === 0 && namesSameMetadata(known, challenge))
    return Promise.resolve(known);
  return discover(oauth, endpoint, challenge, context, input.protocolVersion);
}

function namesSameMetadata(known: Discovered, challenge: BearerChallenge | undefined): boolean {
  const named = challenge?.resourceMetadata;
  if (named === undefined) return true;
  try {
    return new URL(named).href === known.metadataUrl;
  } catch {
    return false;
  }
}

interface ResourceMetadata {
  readonly url: URL;
  readonly json: Record<string, unknown>;
}

/** The endpoint's canonical URI: no fragment, no query. */
export function canonicalResource(endpoint: URL): string {
  const url = new URL(endpoint.href);
  url.hash = '';
  url.search = '';
  return url.href;
}

/** RFC 9728 well-known URLs, path-inserted first (§3.1), then the root. */
export function protectedResourceMetadataUrls(endpoint: URL): URL[] {
  const path = endpoint.pathname.replace(/\/+$/, '');
  const root = new URL('/.well-known/oauth-protected-resource', endpoint.origin);
  return path ? [new URL(`/.well-known/oauth-protected-resource${path}`, endpoint.origin), root] : [root];
}

/** RFC 8414 and OIDC Discovery URLs for an issuer, in the order the MCP spec gives. */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) {
    return [
      new URL('/.well-known/oauth-authorization-server', url.origin),
      new URL('/.well-known/openid-configuration', url.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

/**
 * Finds the authorization server for `endpoint`: protected resource metadata from the challenge's
 * `resource_metadata`, else the well-known URLs; then that server's metadata, its `issuer` checked.
 * Without any protected resource metadata, the 2025-03-26 way: metadata at the endpoint's origin,
 * else its default `/authorize`, `/token` and `/register`.
 */
export async function discover(
  oauth: OAuth,
  endpoint: URL,
  challenge: BearerChallenge | undefined,
  context: AuthContext,
  protocolVersion?: string,
): Promise<Discovered> {
  const prm = await findResourceMetadata(endpoint, challenge, context);
  if (!prm) return discoverLegacy(oauth, endpoint, context, protocolVersion);
  const resource = checkResource(prm, endpoint, context);
  const servers = prm.json.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || typeof servers[0] !== 'string') {
    throw new AuthError(
      'discovery',
      `the protected resource metadata at ${displayUrl(prm.url)} names no authorization server (authorization_servers is empty or missing)`,
      { server: context.server },
    );
  }
  const issuer = servers[0];
  checkOAuthUrl(issuer, `the authorization server ${JSON.stringify(issuer)}`, 'discovery', context);
  const as = await fetchAuthorizationServer(oauth, issuer, context);
  const scopes = prm.json.scopes_supported;
  return {
    resource,
    issuer: as.issuer,
    as,
    scopesSupported: Array.isArray(scopes)
      ? scopes.filter((s): s is string => typeof s === 'string')
      : undefined,
    via: 'protected-resource-metadata',
    metadataUrl: prm.url.href,
  };
}

async function findResourceMetadata(
  endpoint: URL,
  challenge: BearerChallenge | undefined,
  context: AuthContext,
): Promise<ResourceMetadata | undefined> {
  const candidates: URL[] = [];
  if (challenge?.resourceMetadata) {
    candidates.push(
      checkOAuthUrl(
        challenge.resourceMetadata,
        'the challenge\u2019s resource_metadata',
        'discovery',
        context,
      ),
    );
  }
  candidates.push(...protectedResourceMetadataUrls(endpoint));
  for (const url of candidates) {
    const response = await fetchDocument(url, context, 'resource_metadata');
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    const json = await readJsonObject(response);
    if (json) return { url, json };
  }
  return undefined;
}

/**
 * The PRM `resource` must name this endpoint: the same origin, and a path the endpoint's path
 * starts with (the relaxed RFC 9728 §3.3 check the official SDKs apply). A foreign one stops the
 * flow, and so does a missing one: RFC 9728 §2 requires the member, and without it nothing says
 * the document is about this endpoint.
 */
function checkResource(prm: ResourceMetadata, endpoint: URL, context: AuthContext): string {
  const value = prm.json.resource;
  if (value === undefined) {
    throw new AuthError(
      'discovery',
      `the protected resource metadata at ${displayUrl(prm.url)} has no resource (RFC 9728 requires it), so nothing says it is for ${displayUrl(endpoint)}; refusing to authorize, so no token is requested for an unknown resource: the server must name its resource in that document`,
      { server: context.server },
    );
  }
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new AuthError(
      'discovery',
      `the protected resource metadata at ${displayUrl(prm.url)} has an invalid resource`,
      {
        server: context.server,
      },
    );
  }
  const resource = new URL(value);
  const prefix = resource.pathname.replace(/\/+$/, '');
  const path = endpoint.pathname;
  const samePath = path === prefix || path.startsWith(`${prefix}/`) || prefix === '';
  if (resource.origin !== endpoint.origin || !samePath || resource.hash) {
    throw new AuthError(
      'discovery',
      `the protected resource metadata at ${displayUrl(prm.url)} is for ${displayUrl(resource)}, not for ${displayUrl(endpoint)}; refusing to authorize, so no token for another resource is requested or sent`,
      { server: context.server },
    );
  }
  return value;
}

/** The issuer's metadata from the first well-known URL that has it; a document naming another issuer is never used. */
export async function fetchAuthorizationServer(
  oauth: OAuth,
  issuer: string,
  context: AuthContext,
): Promise<AuthorizationServer> {
  let mismatch: AuthError | undefined;
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await fetchDocument(url, context, 'server_metadata');
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    try {
      return checkEndpoints(await oauth.processDiscoveryResponse(new URL(issuer), response), context);
    } catch (error) {
      if (error instanceof oauth.OperationProcessingError && error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
        mismatch = new AuthError(
          'discovery',
          `${metadataAt(url)} names another issuer than ${issuer}; it was not used (RFC 8414 §3.3)`,
          { server: context.server },
        );
        continue;
      }
      throw toAuthError(oauth, error, 'discovery', metadataAt(url), context);
    }
  }
  throw (
    mismatch ??
    new AuthError(
      'discovery',
      `no authorization server metadata for ${issuer} at ${authorizationServerMetadataUrls(issuer)
        .map((u) => displayUrl(u))
        .join(', ')}`,
      { server: context.server },
    )
  );
}

function metadataAt(url: URL): string {
  return `the authorization server metadata at ${displayUrl(url)}`;
}

function checkEndpoints(as: AuthorizationServer, context: AuthContext): AuthorizationServer {
  for (const name of [
    'authorization_endpoint',
    'token_endpoint',
    'registration_endpoint',
    'revocation_endpoint',
  ] as const) {
    if (as[name] !== undefined)
      checkOAuthUrl(as[name], `the authorization server's ${name}`, 'discovery', context);
  }
  return as;
}

/** 2025-03-26: no protected resource metadata; the authorization server is the endpoint's origin. */
async function discoverLegacy(
  oauth: OAuth,
  endpoint: URL,
  context: AuthContext,
  protocolVersion: string | undefined,
): Promise<Discovered> {
  const base = endpoint.origin;
  const url = new URL('/.well-known/oauth-authorization-server', base);
  const response = await fetchDocument(url, context, 'server_metadata', {
    'mcp-protocol-version': protocolVersion ?? NO_RESOURCE_METADATA_VERSION,
  });
  const resource = canonicalResource(endpoint);
  if (response.status === 200) {
    try {
      const { expected, replay } = await legacyIssuer(response, base);
      const as = checkEndpoints(await oauth.processDiscoveryResponse(expected, replay), context);
      return { resource, issuer: as.issuer, as, scopesSupported: undefined, via: 'legacy-metadata' };
    } catch (error) {
      throw toAuthError(oauth, error, 'discovery', metadataAt(url), context);
    }
  }
  await response.body?.cancel();
  if (response.status !== 404) {
    throw noOAuthMetadata(endpoint, context, `${displayUrl(url)} answered ${response.status}`);
  }
  const as: AuthorizationServer = {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    // 2025-03-26 makes PKCE REQUIRED of every server, so there is no metadata to check it in.
    code_challenge_methods_supported: ['S256'],
  };
  return { resource, issuer: base, as, scopesSupported: undefined, via: 'legacy-default-endpoints' };
}

/**
 * The issuer a 2025-03-26 metadata document is checked against. That revision defines the
 * authorization server by the endpoint's origin and has clients read the metadata at its root,
 * so an issuer with a path on that same origin (`https://mcp.example.com/oauth`) is what such
 * servers publish; it is accepted. An issuer on any other origin is still refused.
 */
async function legacyIssuer(response: Response, base: string): Promise<{ expected: URL; replay: Response }> {
  const text = await response.text();
  const replay = new Response(text, { status: response.status, headers: response.headers });
  let issuer: unknown;
  try {
    issuer = (JSON.parse(text) as { issuer?: unknown } | null)?.issuer;
  } catch {
    issuer = undefined;
  }
  const sameOrigin = typeof issuer === 'string' && URL.canParse(issuer) && new URL(issuer).origin === base;
  return { expected: new URL(sameOrigin ? (issuer as string) : base), replay };
}

/**
 * The server answered 401 but publishes no OAuth metadata at all: no protected resource metadata,
 * no authorization server metadata, and (`detail`) no working default endpoint either. Such a
 * server wants a credential of another kind (an API key, a static token). Status 401.
 */
export function noOAuthMetadata(endpoint: URL, context: AuthContext, detail: string): AuthError {
  return new AuthError(
    'discovery',
    `${displayUrl(endpoint)} answered 401, but the server publishes no OAuth metadata (${detail}): it likely takes an API key or a static token instead; give it with a static Authorization header in transport.headers or with transport.auth: { bearer }`,
    { server: context.server, status: 401 },
  );
}

/**
 * A failure after discovery fell back to a 2025-03-26 server's default endpoints: if their
 * registration endpoint is not one (no OAuth error came back), the server has no OAuth at all.
 */
export function defaultEndpointsFailure(
  error: unknown,
  found: Discovered,
  endpoint: URL,
  context: AuthContext,
): unknown {
  if (found.via !== 'legacy-default-endpoints') return error;
  if (!(error instanceof AuthError) || error.step !== 'registration' || error.error !== undefined)
    return error;
  return noOAuthMetadata(
    endpoint,
    context,
    `none at its well-known URLs, and ${found.as.registration_endpoint} is no client registration endpoint`,
  );
}
