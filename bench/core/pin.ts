// Pinning a sequential sample's two processes to one CPU. A sequential call is a ping-pong between
// the client and its server: on this kind of VM (2 vCPUs), when they sit on different vCPUs each
// message waits for the host to wake the other vCPU from idle, so a sample's rate swings up to 10x
// with where the scheduler put them (measured: 2,500 to 27,000 calls/s for the same client, the
// interquartile range +-30%). On one CPU the wake-up is a context switch and what is left is the
// two processes' own work: the rate roughly doubles and the interquartile range narrows to about
// +-8%, the same way for every client. Linux only (util-linux's taskset); elsewhere nothing is pinned.
import { execFileSync } from 'node:child_process';

/** The CPU sequential samples run on: `--pin <cpu>` (default 0), or `off`. */
export type PinSetting = number | 'off';

export function parsePin(text: string | undefined): PinSetting {
  if (text === undefined) return 0;
  if (text === 'off') return 'off';
  const cpu = Number(text);
  if (!Number.isInteger(cpu) || cpu < 0) throw new Error(`--pin ${text}: a CPU number (0, 1, ...) or off`);
  return cpu;
}

function mask(pid: number): string | undefined {
  try {
    // "pid 1234's current affinity mask: 3"
    const out = execFileSync('taskset', ['-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /:\s*([0-9a-f]+)\s*$/i.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

function setAffinity(pid: number, args: string[]): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', ...args, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Pins this process and `pids` (every thread of each) to `cpu`; returns what undoes it (each
 * process back to its own mask), or undefined when nothing could be pinned (no taskset, not Linux,
 * no such CPU, `off`): the sample then runs unpinned.
 */
export function pinToCpu(cpu: PinSetting, pids: readonly number[]): (() => void) | undefined {
  if (cpu === 'off' || process.platform !== 'linux') return undefined;
  const all = [process.pid, ...pids];
  const saved = all.map((pid) => ({ pid, mask: mask(pid) }));
  if (saved.some((entry) => entry.mask === undefined)) return undefined;
  const pinned = saved.filter((entry) => setAffinity(entry.pid, ['-c', String(cpu)]));
  const undo = () => {
    for (const entry of pinned) setAffinity(entry.pid, [entry.mask!]);
  };
  if (pinned.length !== all.length) {
    undo();
    return undefined;
  }
  return undo;
}

/**
 * The table note on pinning: none with `--pin off`; else that `who` ran pinned to the CPU, or why
 * nothing could be pinned.
 */
export function pinNote(cpu: PinSetting, who: string, pinned: boolean): string[] {
  if (cpu === 'off') return [];
  return [
    pinned
      ? `${who} pinned to CPU ${cpu} (bench/core/pin.ts; --pin off for the scheduler's choice).`
      : `not pinned (no taskset here, or CPU ${cpu} is not available to this process).`,
  ];
}
