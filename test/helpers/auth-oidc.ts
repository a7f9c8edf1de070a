// The OAuth scene with a certified authorization server: oidc-provider, and the official SDK's
// MCP server (2.x, both eras) in front of it, accepting only audience-bound JWTs.
import { Client, type OAuthOptions } from '../../src/index.js';
import { type JwtGuardOptions, jwtGuard } from '../fixtures/auth/jwt-guard.js';
import { type OidcServer, type OidcServerOptions, startOidcServer } from '../fixtures/auth/oidc-server.js';
import { type RunningServer, startSdkV2 } from '../fixtures/http/sdk-servers.js';
import { closeLater } from './auth-setup.js';

export interface OidcScene {
  readonly as: OidcServer;
  readonly mcp: RunningServer;
  /** The Authorization header of every request to /mcp, in order ('' when absent). */
  authorizations(): string[];
  /** Why the MCP server refused tokens, in order ('no token' for a request without one). */
  readonly refusals: string[];
}

/** `resource`: what the MCP server asks of DPoP proofs (with `dpop`, it takes only DPoP-bound tokens). */
export async function oidcScene(
  options: OidcServerOptions & { resource?: JwtGuardOptions['dpop']; redirect?: string } = {},
): Promise<OidcScene> {
  const as = await startOidcServer(options);
  closeLater(as.close);
  const guard = jwtGuard({
    issuer: as.issuer,
    ...(options.dpop ? { dpop: options.resource ?? {} } : {}),
    ...(options.redirect ? { redirect: options.redirect } : {}),
  });
  const mcp = await startSdkV2({ guard });
  closeLater(mcp.close);
  return {
    as,
    mcp,
    refusals: guard.refusals,
    authorizations: () =>
      mcp.requests.filter((r) => r.path === '/mcp').map((r) => String(r.headers.authorization ?? '')),
  };
}

/** A Client for the scene's MCP server, closed when the test file ends. */
export function oidcClient(url: string, auth: OAuthOptions): Client {
  const client = new Client({
    name: 'remote',
    transport: { type: 'http', url, auth: { allowPrivateNetwork: true, ...auth } },
    reconnect: { maxReconnects: 0 },
  });
  closeLater(() => client.close());
  return client;
}

export const textOf = (result: unknown): string =>
  (result as { content: Array<{ text: string }> }).content[0]!.text;

/** Asks the authorization server for a refresh with `refreshToken` itself: its error code, or 'accepted'. */
export async function refreshRefused(
  issuer: string,
  clientId: string,
  refreshToken: string,
  resource: string,
): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      resource,
      client_id: clientId,
    }).toString(),
  });
  const body = (await response.json()) as { error?: string };
  return response.ok ? 'accepted' : (body.error ?? String(response.status));
}
