/**
 * conduit-mcp's own directory, and the files a pool keeps there for one config file: JSON written
 * atomically (a temporary file in the same directory, flushed, then renamed, mode 0600 in a 0700
 * directory) under a cross-process lock (`<file>.lock` through `proper-lockfile`, loaded on first
 * use), so two processes sharing a config never leave half a file or lose each other's update.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { withFileLock, writePrivateFile } from '../private-file.js';

/**
 * conduit-mcp's own directory, where the command keeps OAuth tokens and pools keep their tool
 * manifests: `%APPDATA%\conduit-mcp` on Windows, else `$XDG_CONFIG_HOME/conduit-mcp` (an absolute
 * XDG_CONFIG_HOME only, as the XDG spec says), else `~/.config/conduit-mcp`.
 */
export function conduitDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (platform === 'win32') {
    return path.win32.join(env.APPDATA || path.win32.join(home, 'AppData', 'Roaming'), 'conduit-mcp');
  }
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'conduit-mcp');
}

/**
 * The file of one config file's `kind` (`manifest`, `pins`): `<directory>/pools/<name>-<hash>.<kind>.json`,
 * the hash of the config file's absolute path keeping two configs apart.
 */
export function poolStateFile(configFile: string, kind: string, directory = conduitDirectory()): string {
  const absolute = path.resolve(configFile);
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 16);
  const readable = path
    .basename(absolute)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 40);
  return path.join(directory, 'pools', `${readable}-${hash}.${kind}.json`);
}

/** The parsed file, or undefined when it does not exist. Rejects for a file that is not JSON. */
export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}); move it away or delete it`);
  }
}

/** Replaces `file` with `value` as JSON, atomically (mode 0600). */
export function writeJsonFile(file: string, value: unknown): Promise<void> {
  return writePrivateFile(file, `${JSON.stringify(value)}\n`);
}

/** Longest wait for another process's lock, ms; a lock untouched for 10 s is a dead process's. */
const LOCK_WAIT_MS = 10_000;

/** Reads `file`, lets `change` make the new value from it, writes that: all under the file's lock. */
export function updateJsonFile(file: string, change: (current: unknown) => unknown): Promise<void> {
  return withFileLock(file, LOCK_WAIT_MS, async () =>
    writeJsonFile(file, change(await readJsonFile(file).catch(() => undefined))),
  );
}
