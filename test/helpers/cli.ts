// Runs the built `conduit-mcp` command as a user would: a spawned process with pipes, or under
// a real pseudo-terminal (`script -qfec`) where the behaviour is TTY-only.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before } from 'node:test';
import { fixture } from './fixtures.js';

export const root = path.resolve(import.meta.dirname, '../..');
export const bin = path.join(root, 'dist/cli/main.js');
export const demo = path.join(root, 'examples/demo-server.mjs');
/** `-- node cli-server.mjs <flags>`: the CLI's fixture server. */
export const CLI_SERVER = (...flags: string[]) => [
  '--',
  process.execPath,
  fixture('cli-server.mjs'),
  ...flags,
];

/** `npm test` builds first; a lone run of a CLI test file builds if needed. */
export function buildOnce(): void {
  before(() => {
    if (!existsSync(bin)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  });
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** ms from spawn to exit. */
  elapsed: number;
}

export interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `pattern` appears on stderr (or stdout), up to `ms`. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpMatchArray>;
  finished: Promise<Finished>;
}

/** Starts the command with pipes; the caller must await `finished`. */
export function start(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Running {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? root,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    for (const watcher of watchers) watcher();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    for (const watcher of watchers) watcher();
  });
  child.stdin.on('error', () => {});
  if (options.input !== undefined) child.stdin.end(options.input);
  else child.stdin.end();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const finished = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conduit-mcp ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, elapsed: performance.now() - started });
    });
  });
  const waitFor = (pattern: RegExp, ms = 15_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stderr) ?? pattern.exec(stdout);
        if (!match) return;
        clearTimeout(timer);
        watchers.delete(check);
        resolve(match);
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`${pattern} did not appear in ${ms} ms; stderr: ${stderr}; stdout: ${stdout}`));
      }, ms);
      watchers.add(check);
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, waitFor, finished };
}

/** Runs the command to its end. */
export function run(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {},
): Promise<Finished> {
  return start(args, options).finished;
}

/** Quotes a word for `sh -c` (the test's own command line, never a server's input). */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the command under a pseudo-terminal (`script -qfec`): stdin, stdout and stderr are a TTY.
 * `keys` are typed one chunk at a time, each after `pattern` shows (or after a pause). `columns`
 * sets the terminal's width (`stty cols`) before the command starts.
 */
export function startInTerminal(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; columns?: number } = {},
) {
  const resize = options.columns !== undefined ? `stty cols ${options.columns} rows 50; ` : '';
  const command = resize + [process.execPath, bin, ...args].map(shellQuote).join(' ');
  const started = performance.now();
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: { ...(options.env ?? process.env), TERM: 'xterm', COLUMNS: '200' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    screen += text;
    for (const watcher of watchers) watcher();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    screen += text;
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const finished = new Promise<{ code: number | null; screen: string; elapsed: number }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`script ${command} did not finish in ${timeoutMs} ms; screen: ${screen}`));
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, screen, elapsed: performance.now() - started });
      });
    },
  );
  const waitFor = (pattern: RegExp, ms = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        // Cursor movement and line clearing (readline on a terminal) between the words.
        if (!pattern.test(screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, ''))) return;
        clearTimeout(timer);
        watchers.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        child.kill('SIGKILL');
        reject(
          new Error(
            `${pattern} did not appear on the terminal in ${ms} ms; screen: ${JSON.stringify(screen)}`,
          ),
        );
      }, ms);
      watchers.add(check);
      check();
    });
  return { child, type: (keys: string) => child.stdin.write(keys), screen: () => screen, waitFor, finished };
}
