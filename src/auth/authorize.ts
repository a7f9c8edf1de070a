import { AuthError } from '../errors.js';
import type { Discovered } from './discovery.js';
import { type IssuedTokens, oauthClient, redeemCode } from './grants.js';
import { type AuthContext, type OAuth, toAuthError } from './http.js';
import { type LoopbackListener, listenable, startLoopbackListener } from './loopback.js';
import type { ResolvedOAuthOptions } from './options.js';
import { isClientRefusal, RefusedClient } from './refused-client.js';
import { type ClientIdentity, resolveClient } from './registration.js';

/** What one authorization code flow records before the user is sent away (2026-07-28 §Authorization Response Validation). */
interface PendingAuthorization {
  readonly issuer: string;
  readonly state: string;
  readonly verifier: string;
  readonly redirectUri: string;
}

/**
 * The authorization code flow with PKCE S256: registration (which needs the redirect URI), the
 * authorization URL shown through `onAuthorizationUrl`, the redirect caught by the caller or the
 * loopback listener within `authorizationTimeout`, `state` and RFC 9207 `iss` checked, then the
 * code redeemed with the same `resource`.
 */
export async function authorizeWithCode(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  scopes: readonly string[],
  context: AuthContext,
): Promise<{ tokens: IssuedTokens; client: ClientIdentity }> {
  // A server that does not advertise S256 PKCE is refused (MCP §PKCE).
  const methods = found.as.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    throw new AuthError(
      'authorization',
      `the authorization server ${found.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported is ${Array.isArray(methods) ? JSON.stringify(methods) : 'missing'}); refusing to authorize without it`,
      { server: context.server },
    );
  }
  const show = options.onAuthorizationUrl;
  if (!show) {
    throw new AuthError(
      'authorization',
      `the server needs a user's consent at ${found.issuer}; set auth.onAuthorizationUrl to show the user the authorization URL (or use grant: 'client_credentials' with a client secret or key)`,
      { server: context.server },
    );
  }
  const state = oauth.generateRandomState();
  const verifier = oauth.generateRandomCodeVerifier();
  context.secrets.add(verifier);
  let listener: LoopbackListener | undefined;
  if (listenable(options.redirectUrl)) {
    try {
      listener = await startLoopbackListener(options.redirectUrl, state);
    } catch (error) {
      throw new AuthError(
        'authorization',
        `could not listen for the redirect on 127.0.0.1${options.redirectUrl ? `:${options.redirectUrl.port}` : ''} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); free that port or set auth.redirectUrl to another`,
        { server: context.server },
      );
    }
  }
  try {
    const pending: PendingAuthorization = {
      issuer: found.issuer,
      state,
      verifier,
      redirectUri: listener?.redirectUri ?? options.redirectUrl!.href,
    };
    const client = await resolveClient(oauth, found, options, pending.redirectUri, context);
    const url = authorizationUrl(
      found,
      client,
      pending,
      scopes,
      await oauth.calculatePKCECodeChallenge(verifier),
      context,
    );
    const landed = await waitForRedirect(show, url, listener, options.authorizationTimeout, context);
    const parameters = validateRedirect(oauth, found, client, pending, landed, context);
    try {
      const tokens = await redeemCode(
        oauth,
        found,
        client,
        options,
        parameters,
        pending.redirectUri,
        verifier,
        context,
      );
      return { tokens, client };
    } catch (error) {
      if (isClientRefusal(error)) throw new RefusedClient(client.clientId, error);
      throw error;
    }
  } finally {
    await listener?.close();
  }
}

function authorizationUrl(
  found: Discovered,
  client: ClientIdentity,
  pending: PendingAuthorization,
  scopes: readonly string[],
  challenge: string,
  context: AuthContext,
): URL {
  if (!found.as.authorization_endpoint) {
    throw new AuthError(
      'authorization',
      `the authorization server ${found.issuer} has no authorization_endpoint`,
      {
        server: context.server,
      },
    );
  }
  const url = new URL(found.as.authorization_endpoint);
  const parameters = url.searchParams;
  parameters.set('response_type', 'code');
  parameters.set('client_id', client.clientId);
  parameters.set('redirect_uri', pending.redirectUri);
  parameters.set('code_challenge', challenge);
  parameters.set('code_challenge_method', 'S256');
  parameters.set('state', pending.state);
  parameters.set('resource', found.resource);
  if (scopes.length > 0) parameters.set('scope', scopes.join(' '));
  // OpenID Connect Core §11: a server ignores offline_access (and issues no refresh token)
  // unless the user is asked to consent.
  if (scopes.includes('offline_access')) parameters.set('prompt', 'consent');
  return url;
}

async function waitForRedirect(
  show: NonNullable<ResolvedOAuthOptions['onAuthorizationUrl']>,
  url: URL,
  listener: LoopbackListener | undefined,
  timeout: number,
  context: AuthContext,
): Promise<URL> {
  // A client closed during discovery or registration must not send its user to a browser for a
  // redirect nobody will be listening for.
  if (context.signal?.aborted) {
    throw new AuthError('authorization', 'the client closed before the user was asked to authorize', {
      server: context.server,
    });
  }
  let timer: NodeJS.Timeout | undefined;
  context.onUserWait?.(true);
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AuthError(
            'authorization',
            `no authorization came back within ${timeout} ms${listener ? `; the listener on ${new URL(listener.redirectUri).host} was closed` : ''}; try again, or raise auth.authorizationTimeout`,
            { server: context.server },
          ),
        ),
      timeout,
    );
  });
  const fromCaller = (async () => {
    let returned: unknown;
    try {
      returned = await show(new URL(url.href));
    } catch (error) {
      throw new AuthError(
        'authorization',
        `auth.onAuthorizationUrl failed: ${(error as Error)?.message ?? String(error)}`,
        {
          server: context.server,
        },
      );
    }
    if (returned !== undefined && returned !== null) {
      const text = String(returned);
      if (!URL.canParse(text)) {
        throw new AuthError('authorization', 'auth.onAuthorizationUrl returned something that is not a URL', {
          server: context.server,
        });
      }
      return new URL(text);
    }
    if (!listener) {
      throw new AuthError(
        'authorization',
        'auth.onAuthorizationUrl returned nothing and auth.redirectUrl is not a loopback address this process can listen on; return the URL the user was redirected to',
        { server: context.server },
      );
    }
    return new Promise<never>(() => {}); // the listener answers
  })();
  let onAbort: (() => void) | undefined;
  const closed = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        new AuthError('authorization', 'the client closed while waiting for the user to authorize', {
          server: context.server,
        }),
      );
    if (context.signal?.aborted) onAbort();
    else context.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fromCaller, ...(listener ? [listener.callback] : []), expired, closed]);
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', onAbort!);
    context.onUserWait?.(false);
  }
}

/**
 * RFC 9207 and `state`: oauth4webapi's validateAuthResponse checks `iss` against the recorded
 * issuer by simple string comparison (absent while advertised: rejected) before it looks at
 * `state` or `error`, so a mismatched response's error fields are never acted on.
 */
function validateRedirect(
  oauth: OAuth,
  found: Discovered,
  client: ClientIdentity,
  pending: PendingAuthorization,
  landed: URL,
  context: AuthContext,
): URLSearchParams {
  const code = landed.searchParams.get('code');
  if (code) context.secrets.add(code);
  const as = { ...found.as, issuer: pending.issuer };
  try {
    return oauth.validateAuthResponse(as, oauthClient(client), landed.searchParams, pending.state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      throw toAuthError(
        oauth,
        error,
        'authorization',
        `the authorization at ${found.issuer} was refused`,
        context,
      );
    }
    const iss = landed.searchParams.get('iss');
    const why =
      iss === null && found.as.authorization_response_iss_parameter_supported
        ? `has no iss although ${found.issuer} advertises it (RFC 9207)`
        : iss !== null && iss !== pending.issuer
          ? `names another issuer than ${pending.issuer} (RFC 9207: a mix-up attack or a misconfigured server)`
          : landed.searchParams.get('state') === null
            ? 'carries no state'
            : landed.searchParams.get('state') !== pending.state
              ? 'carries another state than the one sent'
              : ((error as Error).message ?? 'is invalid');
    throw new AuthError('authorization', `the authorization response ${why}; the code was not redeemed`, {
      server: context.server,
    });
  }
}
