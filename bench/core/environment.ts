// The machine and the load a run was taken under, for the table's header and the JSON.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { SDK1_VERSION, SDK2_VERSION } from '../clients/index.js';
import { collectGarbage } from './stats.js';

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1]!.trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function uptime(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}`;
  }
}

function nproc(): number {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return os.availableParallelism();
  }
}

export function environment() {
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.type()} ${os.release()}`,
    arch: process.arch,
    cpu: cpuModel(),
    nproc: nproc(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    sdk1: SDK1_VERSION,
    sdk2: SDK2_VERSION,
    uptimeAtStart: uptime(),
    uptimeAtEnd: '',
    gcBetweenSamples: collectGarbage !== undefined,
  };
}

export type Environment = ReturnType<typeof environment>;
