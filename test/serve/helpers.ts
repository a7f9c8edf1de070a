import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before } from 'node:test';
import { fixture } from '../helpers/fixtures.js';

export const root = path.resolve(import.meta.dirname, '../..');
/** The built command, as a host runs it. */
export const bin = path.join(root, 'dist/cli/main.js');

/** Builds the command once if dist/ is missing. */
export function needsBuild(): void {
  before(() => {
    if (!existsSync(bin)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  });
}

/**
 * A config file of three servers: the demo server, the scriptable fixture (recording every line
 * it reads to `record`), and the prompts fixture; `extra` adds keys to the fixture's entry.
 */
export function threeServerConfig(directory: string, record: string, extra: object = {}): string {
  const file = path.join(directory, 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        demo: { command: process.execPath, args: [path.join(root, 'examples/demo-server.mjs')] },
        fx: { command: process.execPath, args: [fixture('mcp.mjs'), '--record', record], ...extra },
        memory: {
          command: process.execPath,
          args: [path.join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
          env: { MEMORY_FILE_PATH: path.join(directory, 'memory.jsonl') },
        },
      },
    }),
  );
  return file;
}

/** Runs the gateway with `args` and a given stdin, returns its exit and stderr. */
export function runGateway(
  args: string[],
  options: { timeout?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
    });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conduit-mcp ${args.join(' ')} did not finish; stderr: ${stderr}`));
    }, options.timeout ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}
