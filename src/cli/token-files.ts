import { createHash } from 'node:crypto';
import path from 'node:path';
import { conduitDirectory, FileTokenStore } from '../index.js';
import type { Environment } from './cli-arguments.js';

/** conduit-mcp's own directory (see conduitDirectory). */
export function configDirectory(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
): string {
  return conduitDirectory(env, platform, home);
}

/** A server is its endpoint without query or fragment: `https://host/mcp?x=1` is `https://host/mcp`. */
export function serverKey(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * The file that holds one server's OAuth tokens and client registrations:
 * `<config directory>/tokens/<host>_<port>-<path>-<hash>.json`. The readable part is for people
 * looking at the directory; the hash of the whole endpoint keeps two servers apart.
 */
export function tokenFile(url: string, directory: string): string {
  const key = serverKey(url);
  const parsed = new URL(key);
  const readable =
    `${parsed.hostname}_${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}${parsed.pathname}`
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/-+$/, '')
      .slice(0, 80);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return path.join(directory, 'tokens', `${readable}-${hash}.json`);
}

/** The store the CLI gives a server's OAuth: its own file, owner-only (0600 in a 0700 directory). */
export function tokenStoreFor(url: string, directory: string): FileTokenStore {
  return new FileTokenStore(tokenFile(url, directory));
}

/** The config directory of the command's user. */
export function configDirectoryOf({ env, platform, home }: Environment): string {
  return configDirectory(env, platform, home);
}
