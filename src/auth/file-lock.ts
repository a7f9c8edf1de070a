import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** A lock file whose holder has not touched it for this long (ms) is stale: its process died. */
export const STALE_LOCK_MS = 10_000;

/**
 * Holds `<file>.lock` (a directory, created atomically) across processes while `critical`
 * runs, through `proper-lockfile`, loaded only when a FileTokenStore is first locked. It keeps
 * the lock fresh while held and takes over one left stale by a dead process; a live holder is
 * waited for at most `wait` ms, then the lock fails naming the file.
 */
export async function withFileLock<T>(file: string, wait: number, critical: () => Promise<T>): Promise<T> {
  const { lock } = await import('proper-lockfile');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const interval = 50;
  let release: () => Promise<void>;
  try {
    release = await lock(file, {
      realpath: false, // the file itself may not exist yet
      stale: STALE_LOCK_MS,
      retries: { retries: Math.ceil(wait / interval), factor: 1, minTimeout: interval, maxTimeout: interval },
      // A lock taken over while held (the machine slept past STALE_LOCK_MS): the critical section
      // re-reads the entry before it writes, so the worst case is one extra refresh.
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new Error(
      `${file} stayed locked by another process for ${wait} ms (its lock is ${file}.lock); if no conduit-mcp process is using it, delete that lock directory`,
    );
  }
  try {
    return await critical();
  } finally {
    await release().catch(() => {});
  }
}
