/**
 * The files conduit-mcp keeps for its user (OAuth tokens, a pool's tool manifest and pins): owner
 * only, replaced atomically, and locked across processes.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** A lock file whose holder has not touched it for this long (ms) is stale: its process died. */
const STALE_LOCK_MS = 10_000;

/**
 * Replaces `file` with `text` atomically: a temporary file in the same directory (created 0700),
 * mode 0600 whatever the umask, flushed, then renamed, so a crash never leaves half a file.
 */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const directory = path.dirname(file);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = path.join(directory, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.chmod(0o600);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}

/**
 * Holds `<file>.lock` (a directory, through `proper-lockfile`, loaded on first use: it keeps the
 * lock fresh while held and takes over one a dead process left for 10 s) while `critical` runs,
 * waiting at most `waitMs` for a live holder, then throwing an Error naming the file.
 */
export async function withFileLock<T>(file: string, waitMs: number, critical: () => Promise<T>): Promise<T> {
  const { lock } = await import('proper-lockfile');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const interval = 50;
  let release: () => Promise<void>;
  try {
    release = await lock(file, {
      realpath: false, // the file itself may not exist yet
      stale: STALE_LOCK_MS,
      retries: {
        retries: Math.ceil(waitMs / interval),
        factor: 1,
        minTimeout: interval,
        maxTimeout: interval,
      },
      // A lock taken over while held (the machine slept past STALE_LOCK_MS): the critical sections
      // re-read the file before they write, so the worst case is one extra refresh.
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new Error(
      `${file} stayed locked by another process for ${waitMs} ms (its lock is ${file}.lock); if no conduit-mcp process is using it, delete that lock directory`,
    );
  }
  try {
    return await critical();
  } finally {
    await release().catch(() => {});
  }
}
