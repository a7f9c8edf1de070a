import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

const hostsDirectory = path.resolve(import.meta.dirname, '../fixtures/hosts');

/**
 * Runs test/fixtures/hosts/<name> (TypeScript, through tsx) in a Node process of its own, its
 * stdin closed, until it exits; killed with SIGKILL (signal set) if it runs past `timeoutMs`.
 */
export async function runHost(
  name: string,
  args: string[] = [],
  timeoutMs = 60_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const host = spawn(process.execPath, ['--import', 'tsx', path.join(hostsDirectory, name), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  host.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  let stderr = '';
  host.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const timer = setTimeout(() => host.kill('SIGKILL'), timeoutMs);
  const [code, signal] = (await once(host, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}
