import { readdirSync, readFileSync } from 'node:fs';

/** The state letter and process group of a Linux process, from `/proc/<pid>/stat`; undefined if gone. */
export function readProcStat(pid: number): { state: string; pgrp: number; ppid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** A zombie ('Z') or dead ('X') process has finished running, though it still has a pid. */
export function isRunningState(state: string): boolean {
  return state !== 'Z' && state !== 'X';
}

/** Linux: the pids of the group's members that still run (zombies excluded). */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgrp === pgid && isRunningState(stat.state)) members.push(pid);
  }
  return members;
}

/**
 * True when no process of the group still runs. `kill(-pgid, 0)` alone would count zombies
 * (which may wait seconds, or forever without a reaping init, to be collected), so on Linux a
 * group that still answers is checked member by member.
 */
export function groupIsEmpty(pgid: number, platform: NodeJS.Platform): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  if (platform === 'linux') return liveGroupMembers(pgid).length === 0;
  return false;
}

/** Sends a signal to every process of the group; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
