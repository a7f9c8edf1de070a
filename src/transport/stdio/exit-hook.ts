import { spawnSync } from 'node:child_process';
import { windowsProcessKill, windowsTreeKill } from './shutdown.js';

/** Process groups (POSIX) or root pids (Windows) of servers that may still run. */
const live = new Set<number>();
let installed = false;

/**
 * If this process exits while servers still run (`process.exit()`, an uncaught exception), kill
 * them synchronously so none is orphaned. An exit hook can only do synchronous work, hence
 * SIGKILL rather than the graceful escalation (Windows: taskkill /T /F, or /F on the pid when the
 * tree kill fails). A SIGKILL of this process cannot be caught at all.
 */
function killAllOnExit(): void {
  for (const id of live) {
    try {
      if (process.platform === 'win32') {
        for (const { file, args } of [windowsTreeKill(id), windowsProcessKill(id)]) {
          if (spawnSync(file, args, { stdio: 'ignore', windowsHide: true }).status === 0) break;
        }
      } else {
        process.kill(-id, 'SIGKILL');
      }
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

export function trackLiveServer(id: number): void {
  live.add(id);
  if (!installed) {
    installed = true;
    process.on('exit', killAllOnExit);
  }
}

export function untrackLiveServer(id: number): void {
  live.delete(id);
  if (live.size === 0 && installed) {
    installed = false;
    process.removeListener('exit', killAllOnExit);
  }
}
