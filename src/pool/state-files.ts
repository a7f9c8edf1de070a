/**
 * conduit-mcp's own directory, and the files a pool keeps there for one config file: JSON written
 * atomically (a temporary file in the same directory, flushed, then renamed, mode 0600 in a 0700
 * directory) under a cross-process lock (`<file>.lock` through `proper-lockfile`, loaded on first
 * use), so two processes sharing a config never leave half a file or lose each other's update.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

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

/** Replaces `file` with `value` as JSON, atomically. */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const directory = path.dirname(file);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = path.join(directory, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(value)}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}

/** Longest wait for another process's lock, ms; a lock untouched for 10 s is a dead process's. */
const LOCK_WAIT_MS = 10_000;

/** Reads `file`, lets `change` make the new value from it, writes that: all under the file's lock. */
export async function updateJsonFile(file: string, change: (current: unknown) => unknown): Promise<void> {
  const { lock } = await import('proper-lockfile');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const interval = 50;
  const release = await lock(file, {
    realpath: false,
    stale: 10_000,
    retries: { retries: LOCK_WAIT_MS / interval, factor: 1, minTimeout: interval, maxTimeout: interval },
    onCompromised: () => {},
  });
  try {
    await writeJsonFile(file, change(await readJsonFile(file).catch(() => undefined)));
  } finally {
    await release().catch(() => {});
  }
}
