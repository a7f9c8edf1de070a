// Process helpers the bench shares: is a pid gone or reaped, peak and current RSS from /proc, the
// CPU time a process used, and the bench servers this process left running.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVER_SCRIPT } from '../clients/types.js';

/** True once the process has exited (gone, or a zombie waiting to be reaped). */
export function processGone(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return true;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** Polls every millisecond until the process is gone; false if `timeoutMs` passes first. */
export async function waitGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!processGone(pid)) {
    if (performance.now() > deadline) return false;
    await sleep(1);
  }
  return true;
}

/**
 * Polls until the process is reaped: its /proc entry is gone, which happens only once every thread
 * of it has finished and its parent has collected it. Between samples, so that one server's teardown
 * never overlaps the next sample. False if `timeoutMs` passes first.
 */
export async function waitReaped(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (existsSync(`/proc/${pid}`)) {
    if (performance.now() > deadline) return false;
    await sleep(1);
  }
  return true;
}

/** A field of /proc/<pid>/status in KiB (VmHWM: peak resident set; VmRSS: current). */
export function statusKiB(field: 'VmHWM' | 'VmRSS', pid: number | 'self' = 'self'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Bench servers started by this process that still run (a 2.x probe sibling, a failed sample). */
export function strayServers(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || fields[0] === 'Z') continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (cmdline.includes(SERVER_SCRIPT)) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** SIGKILLs the bench servers this process started and left running; returns how many. */
export async function killStrayServers(): Promise<number> {
  const pids = strayServers();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const pid of pids) await waitGone(pid, 2000);
  return pids.length;
}

/**
 * CPU time of this process's main thread so far, µs (Linux: its schedstat), or undefined. The rest
 * of process.cpuUsage() is V8's and libuv's worker threads: GC (the concurrent sweeping after
 * each sample's full GC, parallel scavenges) and the JIT's compile jobs.
 */
export function mainThreadCpuUs(): number | undefined {
  try {
    return taskCpuNs(`/proc/self/task/${process.pid}`) / 1000;
  } catch {
    return undefined;
  }
}

/** A task's CPU time so far, ns: the first field of its schedstat. Throws if the task is gone. */
function taskCpuNs(taskDirectory: string): number {
  const stat = readFileSync(`${taskDirectory}/schedstat`, 'latin1');
  return Number(stat.slice(0, stat.indexOf(' ')));
}

/**
 * CPU time of a process so far, all its threads, in ms (Linux: each task's schedstat, ns), or
 * undefined once it is gone.
 */
export function processThreadsCpuMs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += taskCpuNs(`/proc/${pid}/task/${task}`);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/** A process's user + system CPU time so far, in ms, from /proc/<pid>/stat (10 ms ticks). */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
