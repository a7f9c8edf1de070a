import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { channels, debug } from '../../diagnostics.js';
import type { ResolvedStdioOptions } from './options.js';
import { groupIsEmpty, signalGroup } from './process-group.js';
import { runShutdown, shutdownPlan, windowsProcessKill, windowsTreeKill } from './shutdown.js';

/** How the server process ended. Both null when it never started. */
export interface ExitStatus {
  /** The exit code, or null if a signal ended it. */
  code: number | null;
  /** The signal that ended it, e.g. `'SIGTERM'`, or null. */
  signal: string | null;
}

/** The server's graces (StdioOptions), platform, and label for telemetry and logs (a Client passes its name). */
export interface ServerProcessContext extends Pick<ResolvedStdioOptions, 'stdinGrace' | 'termGrace'> {
  readonly name: string | undefined;
  readonly platform: NodeJS.Platform;
}

/**
 * Watches one running server process: its exit, and on `stop()` the escalation (stdin EOF ->
 * SIGTERM -> SIGKILL, or taskkill on Windows) until it and its whole process group are gone. Until
 * then this process's exit hook kills the group, so no server outlives us.
 */
export class ServerProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #context: ServerProcessContext;
  #status: ExitStatus | undefined;
  /** Resolves once the leader process has exited (its group may live on). */
  readonly #leaderExited: Promise<void>;

  /** `onExit` is called when the leader process exits. */
  constructor(
    child: ChildProcessWithoutNullStreams,
    context: ServerProcessContext,
    onExit: (status: ExitStatus) => void,
  ) {
    this.#child = child;
    this.#context = context;
    const label = context.name ?? 'stdio';
    this.#leaderExited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#status = { code, signal };
        resolve();
        if (channels.exit.hasSubscribers)
          channels.exit.publish({ server: context.name, pid: child.pid, code, signal });
        debug('%s: pid %d exited (code %s, signal %s)', label, child.pid, code, signal);
        onExit(this.#status);
      });
    });
    child.on('error', (error) => debug('%s: process error: %s', label, error.message));
    if (child.pid !== undefined) trackLiveServer(child.pid, context.platform);
  }

  /** How the leader process exited, once it has. */
  get status(): ExitStatus | undefined {
    return this.#status;
  }

  /**
   * Stops the server on its own: `closeStdin` first, then the escalation. Resolves with its exit
   * status once its whole group is gone, or given up on; never rejects.
   */
  async stop(closeStdin: () => void): Promise<ExitStatus> {
    const child = this.#child;
    const pid = child.pid!;
    const { name, platform } = this.#context;
    const label = name ?? 'stdio';
    // Keep draining (and dropping) stdout, so a server writing its last words gets no EPIPE; once the
    // leader is gone, let go of the pipes: a grandchild holding them must not keep this process alive.
    child.stdout.removeAllListeners('data');
    child.stdout.resume();
    void this.#leaderExited.then(() => {
      child.stdout.destroy();
      child.stderr?.destroy();
    });
    const gone = await runShutdown(shutdownPlan(platform, pid, this.#context), {
      leaderExited: this.#leaderExited,
      closeStdin,
      isGone: () => this.#status !== undefined && (platform === 'win32' || groupIsEmpty(pid, platform)),
      signalGroup: (signal) => {
        if (channels.signal.hasSubscribers) channels.signal.publish({ server: name, pid, signal });
        debug('%s: sending %s to process group %d', label, signal, pid);
        signalGroup(pid, signal);
      },
      run: (file, args) => this.#run(file, args),
    });
    if (!gone) debug('%s: process group %d still has live members after SIGKILL', label, pid);
    untrackLiveServer(pid);
    return this.#status ?? { code: null, signal: null };
  }

  /** Runs a kill command (Windows): true once it succeeded or the leader exited, false if it failed. */
  #run(file: string, args: readonly string[]): Promise<boolean> {
    const label = this.#context.name ?? 'stdio';
    return new Promise<boolean>((resolve) => {
      if (this.#status) return resolve(true);
      debug('%s: running %s %s', label, file, args.join(' '));
      const killer = spawn(file, args, { stdio: 'ignore', windowsHide: true, shell: false });
      killer.on('error', (error) => {
        debug('%s: %s failed: %s', label, file, error.message);
        resolve(false);
      });
      killer.on('exit', (code) => {
        if (code !== 0) debug('%s: %s %s exited with %s', label, file, args.join(' '), code);
        resolve(code === 0);
      });
      void this.#leaderExited.then(() => resolve(true));
    });
  }
}

/** Process groups (POSIX) or root pids (Windows) of servers that may still run, and their platform. */
const live = new Map<number, NodeJS.Platform>();

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

/** The exit hook is installed exactly while some server may still run. */
function trackLiveServer(id: number, platform: NodeJS.Platform): void {
  if (live.size === 0) process.on('exit', killAllOnExit);
  live.set(id, platform);
}

function untrackLiveServer(id: number): void {
  if (live.delete(id) && live.size === 0) process.removeListener('exit', killAllOnExit);
}
