import type { Credential } from './options.js';
import type { TokenStore } from './token-store.js';

/** Which of the stored tokens a logout concerns. */
export type RevocableToken = 'refresh_token' | 'access_token';

/** Where a logout finds what to revoke, and with which client. */
export interface LogoutOptions {
  /** The store the server's tokens are kept in (the same one given as `auth.store`). */
  readonly store: TokenStore;
  /** A client registered beforehand (as `auth.clientId`); else the registration kept in the store is used. */
  readonly clientId?: string;
  /** That client's secret. */
  readonly clientSecret?: Credential;
  /** As `auth.allowPrivateNetwork`: the authorization server may be on a private address. @defaultValue false */
  readonly allowPrivateNetwork?: boolean;
  /** Longest wait for the authorization server, per request, ms. @defaultValue 30000 */
  readonly requestTimeout?: number;
}

/** What a logout did. */
export interface LogoutResult {
  /** The authorization server that issued the tokens; undefined when none were stored. */
  readonly issuer: string | undefined;
  /** Tokens the server accepted to revoke (RFC 7009), refresh token first. */
  readonly revoked: readonly RevocableToken[];
  /** Tokens not revoked, and why (no `revocation_endpoint`, the server's error, no answer). */
  readonly notRevoked: ReadonlyArray<{
    /** Which token. */
    readonly token: RevocableToken;
    /** Why it was not revoked. */
    readonly reason: string;
  }>;

  /** The store keys deleted. */
  readonly removed: readonly string[];
}

/**
 * Logs out of one MCP server: revokes the stored refresh token, then the access token, at the
 * authorization server's `revocation_endpoint` (RFC 7009) when its metadata has one, then deletes
 * the tokens from `options.store` whether or not the server revoked them. The client registration
 * is kept (it serves every resource of that issuer). Never throws for a server's refusal or
 * absence (see `notRevoked`); throws a ConfigError for invalid options, and what the store throws.
 *
 * @throws {@link ConfigError} (rejects) when an option is invalid.
 * @throws `TypeError` (rejects) when `url` is not a valid URL.
 */

export async function logout(url: string | URL, options: LogoutOptions): Promise<LogoutResult> {
  const { revokeAndForget } = await import('./revoke.js');
  return revokeAndForget(url, options);
}
