// Process checks for the Windows lane: Windows has no /proc and no process groups, so a server is
// watched by its pid alone (OpenProcess through process.kill(pid, 0)).
import dc from 'node:diagnostics_channel';
import { afterEach } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const started = new Set<number>();
dc.subscribe('conduit-mcp:transport:spawn', (message) => {
  started.add((message as { pid: number }).pid);
});

/** True while the process runs. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Waits until the process has ended, up to `ms`. */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * After every test of the file, fails the test if a server a transport started during it still
 * runs after `ms` (long enough for a default shutdown), and kills it.
 */
export function guardProcesses(ms = 8000): void {
  afterEach(async () => {
    const pids = [...started];
    started.clear();
    const survivors: number[] = [];
    for (const pid of pids) {
      if (await waitGone(pid, ms)) continue;
      survivors.push(pid);
      process.kill(pid, 'SIGKILL');
    }
    if (survivors.length > 0)
      throw new Error(`processes still alive after the test: ${survivors.join(', ')}`);
  });
}

/** Fails at once when the lane is run by a Node that is not Windows. */
export function requireWindows(): void {
  if (process.platform !== 'win32') {
    throw new Error(
      `the Windows lane needs Windows Node (process.platform is ${process.platform}): run npm run test:windows`,
    );
  }
}
