import { isOAuthOptions } from '../auth/options.js';
import type { TokenStore } from '../auth/token-store.js';
import type { ClientOptions } from '../client/options.js';
import { HttpError, isConduitError } from '../errors.js';
import type { ServerState } from './server-status.js';

/** What a member learns of the user's OAuth consent, through its wrapped `onAuthorizationUrl`. */
export interface ConsentWatch {
  /** The callback was called: the user is asked at `url`. */
  readonly asked: (url: URL) => void;
  /** The callback returned a URL: the user's answer. */
  readonly answered: () => void;
}

/**
 * OAuth options as a member's Clients get them. Without a `store` of the host's, every Client of
 * the member shares the one `memoryStore` gives, so that restart() (a new Client) keeps the
 * tokens and the registration instead of asking the user again. With `onAuthorizationUrl`, the
 * callback is wrapped so the member hears of the consent: the server is `needs_auth` from the
 * call until the user's answer (the URL the callback returns, or the redirect the loopback
 * listener catches: the next ready or failure), and `connect()` no longer waits for it.
 */
export function withMemberAuth(
  options: ClientOptions,
  memoryStore: () => TokenStore,
  consent: ConsentWatch,
): ClientOptions {
  // Unchecked here: the Client validates the options and names any problem.
  const transport = options.transport as { type?: unknown; auth?: unknown } | undefined;
  if (transport?.type !== 'http' || !isOAuthOptions(transport.auth)) return options;
  const auth = transport.auth as { onAuthorizationUrl?: unknown; store?: unknown };
  const store = auth.store ?? memoryStore();
  let onAuthorizationUrl = auth.onAuthorizationUrl;
  if (typeof onAuthorizationUrl === 'function') {
    const ask = onAuthorizationUrl as (this: unknown, url: URL) => Promise<string | URL | undefined>;
    onAuthorizationUrl = async (url: URL) => {
      consent.asked(url);
      const back = await ask.call(auth, url);
      // A URL back is the user's answer; nothing back means the loopback listener waits for it.
      if (back !== undefined) consent.answered();
      return back;
    };
  }
  const withHooks =
    onAuthorizationUrl === undefined ? { ...auth, store } : { ...auth, store, onAuthorizationUrl };
  return { ...options, transport: { ...transport, auth: withHooks } } as ClientOptions;
}

/**
 * needs_auth for an AuthError (authorization required and not obtained: no onAuthorizationUrl to
 * ask the user, no answer in time, refused, a server that never accepts the token) and for a 401
 * (a server that needs authorization none is configured for, or a static token it refuses);
 * failed for anything else. The supervisor retries neither: what helps is up to the host.
 */
export function downState(error: Error): ServerState {
  if (error instanceof HttpError && error.status === 401) return 'needs_auth';
  return isConduitError(error) && error.code === 'CONDUIT_AUTH' ? 'needs_auth' : 'failed';
}
