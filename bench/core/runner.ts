// The runner's side of a scenario: what a scenario gets (Bench: the run's settings, the client
// filter, where results go) and what it is (Scenario: a group name and a run function), plus the
// helpers several scenarios use: rotating the clients' order, a child process of its own, and the
// pause between two samples that spawn a server.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ClientId, root } from '../clients/index.js';
import type { PinSetting } from './pin.js';
import { killStrayServers, waitReaped } from './processes.js';
import type { Figures } from './stats.js';
import type { Row, RowSpec } from './targets.js';

/** The samples of every client in one scenario (one row of the table, or several). */
export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly figures: Partial<Record<ClientId, Figures>>;
  readonly notes: string[];
}

/** What a scenario is given by the runner. */
export interface Bench {
  /** Measured samples per client (`--runs`, 5 by default; 1 with --quick). */
  readonly runs: number;
  /** `--quick`: every scenario once, with small amounts, as a check before committing. */
  readonly quick: boolean;
  /** The CPU sequential samples pin their two processes to (`--pin`; see bench/core/pin.ts). */
  readonly pin: PinSetting;
  /** `full` in a normal run, `quick` with --quick (an amount of calls, bytes, servers...). */
  size(full: number, quick: number): number;
  /** The clients of `ids` that `--clients` lets through. */
  pick(ids: ClientId[]): ClientId[];
  /** The throughput workloads `--workloads` lets through (all when undefined). */
  readonly workloads: ReadonlySet<string> | undefined;
  /** Progress, on stderr. */
  log(line: string): void;
  /** Keeps a scenario's figures, and the rows of the table built from them. */
  record(result: ScenarioResult, ...rows: RowSpec[]): void;
  /** A row built by the scenario itself (the framing bench's, which has no ScenarioResult). */
  addRow(row: Row): void;
  /** Every result recorded so far (a target may compare two). */
  readonly results: readonly ScenarioResult[];
}

/**
 * One scenario: a file in bench/scenarios/ exporting one of these (or a few), listed in
 * bench/scenarios/index.ts. `group` is the name `--only` selects it by.
 */
export interface Scenario {
  readonly group: string;
  run(bench: Bench): Promise<void>;
}

export function rotate<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]!);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One list of samples per client. */
export function perClient<T>(ids: readonly ClientId[]): Map<ClientId, T[]> {
  return new Map(ids.map((id) => [id, [] as T[]]));
}

const SETTLE_MS = 30;

/** Between spawn samples: the last server fully gone (every thread, reaped), then a short pause. */
export async function settleAfter(pid: number | undefined): Promise<void> {
  if (pid !== undefined) await waitReaped(pid);
  await killStrayServers();
  await sleep(SETTLE_MS);
}

const CHILD_SCRIPT = path.join(root, 'bench/child.ts');

/** Runs bench/child.ts (or `script`) in a process of its own; resolves with its JSON line and its stderr. */
export function runChild<T>(
  args: string[],
  timeoutMs = 120_000,
  script = CHILD_SCRIPT,
): Promise<{ result: T; stderr: string }> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve({ result: JSON.parse(line) as T, stderr });
      } catch {
        reject(
          new Error(`child ${args.join(' ')} failed (code ${code}, signal ${signal}): ${stderr.slice(-500)}`),
        );
      }
    });
  });
}

/** Distinct warning lines a child printed (e.g. MaxListenersExceededWarning from the SDKs). */
export function warnings(stderr: string): string[] {
  const lines = stderr.split('\n').filter((line) => /Warning/.test(line));
  return [...new Set(lines.map((line) => line.replace(/^\(node:\d+\) /, '')))];
}
