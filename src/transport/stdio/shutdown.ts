import { setTimeout as sleep } from 'node:timers/promises';

/** One step of the shutdown escalation. */
export type ShutdownStep =
  | { kind: 'close-stdin' }
  /** Wait up to `ms` for the process and its group to be gone. */
  | { kind: 'wait'; ms: number }
  /** POSIX: signal the whole process group. */
  | { kind: 'signal-group'; signal: 'SIGTERM' | 'SIGKILL' }
  /**
   * Windows: run a command directly (no shell) that kills the process tree; if it fails while the
   * process still runs, run `fallback` (which kills the process alone).
   */
  | { kind: 'run'; file: string; args: readonly string[]; fallback: Command };

/** A program and its arguments, run directly (no shell). */
export interface Command {
  file: string;
  args: readonly string[];
}

/** After SIGKILL (or taskkill), how long to wait for the group to disappear before giving up. */
export const FINAL_WAIT_MS = 5000;

/** Windows has no process groups to signal: taskkill ends the whole tree at once. */
export function windowsTreeKill(pid: number): Command {
  return { file: 'taskkill', args: ['/PID', String(pid), '/T', '/F'] };
}

/**
 * When the tree kill fails (a taskkill without /T, such as Wine's, refuses it as a usage error),
 * the process alone: its children then go only if they exit with it (on stdin EOF, say).
 */
export function windowsProcessKill(pid: number): Command {
  return { file: 'taskkill', args: ['/PID', String(pid), '/F'] };
}

/**
 * The escalation, as data: close stdin, wait `stdinGrace`; POSIX: SIGTERM to the group, wait
 * `termGrace`, SIGKILL to the group; Windows: taskkill /T /F on the tree, or taskkill /F on the
 * process if that fails. Each wait ends early once everything is gone, and later steps are then
 * skipped.
 */
export function shutdownPlan(
  platform: NodeJS.Platform,
  pid: number,
  graces: { stdinGrace: number; termGrace: number },
): ShutdownStep[] {
  const steps: ShutdownStep[] = [{ kind: 'close-stdin' }, { kind: 'wait', ms: graces.stdinGrace }];
  if (platform === 'win32') {
    steps.push({ kind: 'run', ...windowsTreeKill(pid), fallback: windowsProcessKill(pid) });
  } else {
    steps.push({ kind: 'signal-group', signal: 'SIGTERM' }, { kind: 'wait', ms: graces.termGrace });
    steps.push({ kind: 'signal-group', signal: 'SIGKILL' });
  }
  steps.push({ kind: 'wait', ms: FINAL_WAIT_MS });
  return steps;
}

/** What the executor needs from the process it stops. */
export interface ShutdownTarget {
  closeStdin(): void;
  /** True once the process and every process of its group have finished. */
  isGone(): boolean;
  /** Resolves when the leader process has exited (it may have already). */
  readonly leaderExited: Promise<unknown>;
  signalGroup(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Resolves true once the command succeeded or the leader exited, false if the command failed. */
  run(file: string, args: readonly string[]): Promise<boolean>;
}

const POLL_MS = [5, 10, 20, 40];
const MAX_POLL_MS = 50;

async function waitGone(target: ShutdownTarget, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  // While the leader runs the group cannot be empty: wait for its exit event, not by polling.
  await Promise.race([
    target.leaderExited,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
  for (let attempt = 0; ; attempt++) {
    if (target.isGone()) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(POLL_MS[attempt] ?? MAX_POLL_MS, left));
  }
}

/**
 * Runs the plan until the target is gone. Never rejects. Its timers are not unref'd on purpose:
 * a script that closes its client and returns keeps running until the server is really gone.
 */
export async function runShutdown(steps: readonly ShutdownStep[], target: ShutdownTarget): Promise<boolean> {
  for (const step of steps) {
    if (step.kind !== 'close-stdin' && target.isGone()) return true;
    switch (step.kind) {
      case 'close-stdin':
        target.closeStdin();
        break;
      case 'wait':
        if (await waitGone(target, step.ms)) return true;
        break;
      case 'signal-group':
        target.signalGroup(step.signal);
        break;
      case 'run':
        if (!(await target.run(step.file, step.args)) && !target.isGone()) {
          await target.run(step.fallback.file, step.fallback.args);
        }
        break;
    }
  }
  return target.isGone();
}
