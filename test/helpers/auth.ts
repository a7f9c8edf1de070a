// Drives src/auth the way the HTTP transport does: fetch to the protected resource, with the
// provider's header, through sendWithAuthorization. Consent is given by fetching the
// authorization URL as a browser would.
import { resolveOAuthOptions } from '../../src/auth/options.js';
import { OAuthProvider, sendWithAuthorization } from '../../src/auth/provider.js';
import type { OAuthOptions } from '../../src/index.js';

/** A headless user: fetches the authorization URL and returns where the server redirected. */
export async function headlessConsent(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return location;
}

/** A browser: follows the redirect to the loopback listener and returns nothing. */
export async function browserConsent(url: URL): Promise<undefined> {
  const response = await fetch(url, { redirect: 'follow' });
  await response.text();
  return undefined;
}

/** A provider for the loopback servers of the tests: private networks allowed, explicitly. */
export function provider(endpoint: URL, options: OAuthOptions, server = 'test'): OAuthProvider {
  return new OAuthProvider(endpoint, resolveOAuthOptions({ allowPrivateNetwork: true, ...options }), server);
}

export interface Answer {
  readonly status: number;
  readonly wwwAuthenticate: string | undefined;
  readonly body: string;
}

/** One request to the resource (with `x-need` to require scopes), authorized by `auth`. */
export function call(auth: OAuthProvider, endpoint: URL, need?: string): Promise<Answer> {
  return sendWithAuthorization(
    auth,
    async (headers) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { ...headers, ...(need ? { 'x-need': need } : {}) },
        body: '{}',
      });
      return {
        status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate') ?? undefined,
        dpopNonce: response.headers.get('dpop-nonce') ?? undefined,
        body: await response.text(),
      };
    },
    { method: 'POST', url: endpoint },
  );
}
