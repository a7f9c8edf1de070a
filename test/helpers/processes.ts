import dc from 'node:diagnostics_channel';
import { afterEach } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  groupIsEmpty,
  isRunningState,
  liveGroupMembers,
  readProcStat,
  signalGroup,
} from '../../src/transport/stdio/process-group.js';

const started = new Set<number>();
dc.subscribe('conduit-mcp:transport:spawn', (message) => {
  started.add((message as { pid: number }).pid);
});

/** Process groups started (by any transport) since the last check. */
export function startedGroups(): number[] {
  return [...started];
}

/** Waits until the group has no running member, up to `ms`. */
export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!groupIsEmpty(pgid, process.platform)) {
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * After every test of the file, fails the test if any server process group a transport started
 * during it still has a running member after `ms` (long enough for a default shutdown), and kills it.
 */
export function guardProcesses(ms = 8000): void {
  afterEach(async () => {
    const groups = [...started];
    started.clear();
    const survivors: string[] = [];
    for (const pgid of groups) {
      if (await waitGroupGone(pgid, ms)) continue;
      survivors.push(`group ${pgid} (pids ${liveGroupMembers(pgid).join(', ')})`);
      signalGroup(pgid, 'SIGKILL');
    }
    if (survivors.length > 0)
      throw new Error(`processes still alive after the test: ${survivors.join('; ')}`);
  });
}

/** True while the pid runs (a zombie counts as gone). */
export function isRunning(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== undefined && isRunningState(stat.state);
}
