import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList } from 'node:net';
import { inList, isLoopbackAddress, isLoopbackName } from '../loopback.js';

/**
 * Where a server may not send our OAuth requests (the MCP security guide's SSRF advice): loopback,
 * private, link-local (169.254.169.254, the cloud metadata address, among them), shared, and the
 * private IPv6 ranges. Node's own BlockList parses the addresses, not a hand-written parser.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(network, prefix, network.includes(':') ? 'ipv6' : 'ipv4');
}

/** True for an address in a private, loopback or link-local range (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  return inList(PRIVATE, address);
}

export { isLoopbackAddress, isLoopbackName } from '../loopback.js';

/** A refused address: the message says which and how to allow it. */
export class PrivateAddressError extends Error {
  readonly code = 'CONDUIT_PRIVATE_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host}${host === address ? '' : ` (${address})`} is a loopback, private or link-local address; OAuth requests go there only with auth.allowPrivateNetwork: true`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net.connect that refuses private addresses at connection time: the check and the
 * connection use the same answer, so a name that resolves elsewhere the second time (DNS
 * rebinding) gains nothing.
 */
export const publicOnlyLookup = restrictedLookup(false);

/** publicOnlyLookup that lets loopback addresses through (for an endpoint that is itself loopback). */
export const publicOrLoopbackLookup = restrictedLookup(true);

function restrictedLookup(allowLoopback: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find(
        (entry) => isPrivateAddress(entry.address) && !(allowLoopback && isLoopbackAddress(entry.address)),
      );
      if (refused) return callback(new PrivateAddressError(hostname, refused.address), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export type OAuthFetch = (url: string | URL, init: RequestInit) => Promise<Response>;

const restrictedFetches = new Map<boolean, Promise<OAuthFetch>>();

function restrictedFetch(allowLoopback: boolean): Promise<OAuthFetch> {
  let made = restrictedFetches.get(allowLoopback);
  if (!made) {
    made = import('undici').then((undici) => {
      const lookup = allowLoopback ? publicOrLoopbackLookup : publicOnlyLookup;
      const dispatcher = new undici.Agent({ connect: { lookup: lookup as never } });
      return (target, options) =>
        undici.fetch(target, { ...(options as object), dispatcher }) as unknown as Promise<Response>;
    });
    restrictedFetches.set(allowLoopback, made);
  }
  return made;
}

/**
 * fetch for OAuth requests. The endpoint's own origin (the user chose it) and, with
 * `allowPrivateNetwork`, everything go through the global fetch; any other host through undici
 * (loaded now) with publicOnlyLookup at every connection. An endpoint that is itself on loopback
 * may use other loopback hosts (a local server beside a local authorization server): that reaches
 * nothing the user's own choice did not, while private and link-local ranges stay refused.
 */
export function oauthFetch(allowPrivateNetwork: boolean, endpointOrigin?: string): OAuthFetch {
  if (allowPrivateNetwork) return (url, init) => fetch(url, init);
  const allowLoopback = endpointOrigin !== undefined && isLoopbackName(new URL(endpointOrigin).hostname);
  return async (url, init) => {
    if (endpointOrigin !== undefined && new URL(url).origin === endpointOrigin) return fetch(url, init);
    return (await restrictedFetch(allowLoopback))(url, init);
  };
}
