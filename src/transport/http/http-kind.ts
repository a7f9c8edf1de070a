import { AuthError, HttpError } from '../../errors.js';
import type { DiscoveryRules, TransportKind } from '../transport.js';
import { HttpTransport } from './http-transport.js';
import { hasCredentials, httpOptionsOf, resolveHttpSnapshot } from './options.js';

/**
 * Over HTTP, era detection follows the digest's ladder (§2.7): a DiscoverResult or a recognised
 * modern error means modern; a JSON-RPC error or a 4xx with no recognised modern body (400, 404,
 * 405...) means legacy; 401, 403, 406, 415, 5xx, timeouts and network failures say nothing about
 * the era, so the attempt fails (and is retried; an AuthError is final). Silence is a stalled server, not a legacy one.
 */
export const HTTP_DISCOVERY: DiscoveryRules = {
  // Every answer belongs to its request, so only a stalled server is slower.
  probeTimeout: 10_000,
  probeTimeoutMeansLegacy: false,
  // A failed authorization says nothing about the era either (and initialize would only ask again).
  probeErrorMeansLegacy: (error) =>
    !(error instanceof AuthError) && (!(error instanceof HttpError) || error.eraSignal),
  // An HTTP transport closes only on a legacy 404 or a broken HTTP+SSE stream: a failed attempt.
  closeDuringProbeMeansLegacy: false,
};

/** `{ type: 'http', ...HttpOptions }`: Streamable HTTP (both eras), HTTP+SSE as the last fallback. */
export const httpKind: TransportKind = {
  type: 'http',
  resolve(raw, { name, keyPrefix }) {
    // Validated once, here: a wrong option fails the Client's construction, not its connect.
    const options = resolveHttpSnapshot(raw, keyPrefix);
    const spec = httpOptionsOf(options);
    return {
      kind: 'http',
      discovery: HTTP_DISCOVERY,
      createTransport: ({ personWaiting }) => new HttpTransport(spec, { name, keyPrefix, personWaiting }),
      // A 401 where no credential is configured: the server needs one that only the user can give.
      isPermanentFailure: (error) =>
        error instanceof HttpError && error.status === 401 && !hasCredentials(options),
    };
  },
};
