import { spawnSync } from 'node:child_process';
import { windowsProcessKill, windowsTreeKill } from './shutdown.js';

/** Process groups (POSIX) or root pids (Windows) of servers that may still run, and their platform. */
const live = new Map<number, NodeJS.Platform>();
let installed = false;

/**
 * If this process exits while servers still run (`process.exit()`, an uncaught exception), kill
 * them synchronously so none is orphaned. An exit hook can only do synchronous work, hence
 * SIGKILL rather than the graceful escalation (Windows: taskkill /T /F, or /F on the pid when the
 * tree kill fails). A SIGKILL of this process cannot be caught at all.
 */
function killAllOnExit(): void {
  for (const [id, platform] of live) {
    try {
      if (platform === 'win32') {
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

export function trackLiveServer(id: number, platform: NodeJS.Platform): void {
  live.set(id, platform);
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
