import { BlockList, isIP, isIPv4 } from 'node:net';

// Loopback by spelling, shared by the HTTP transport (plain http: is allowed to loopback only) and
// the OAuth network policy (a loopback endpoint may use loopback authorization servers).

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether an IP literal (bracketed or not; IPv4-mapped IPv6 as its IPv4) is in `list`. */
export function inList(list: BlockList, address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return list.check(bare, 'ipv4');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return list.check(mapped[1]!, 'ipv4');
  return list.check(bare, 'ipv6');
}

/** True for a loopback address (127.0.0.0/8, ::1, IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  // The usual spellings without BlockList, whose check costs microseconds (every HTTP Client checks
  // its URL when it is made).
  if (isIPv4(address)) return address.startsWith('127.');
  if (address === '::1' || address === '[::1]') return true;
  return inList(LOOPBACK, address);
}

/** A host name or literal that is loopback by its spelling (RFC 6761 `localhost` included). */
export function isLoopbackName(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}
