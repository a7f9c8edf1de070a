// Runs the code blocks of the documentation as a user would: in a temporary project whose
// node_modules/conduit-mcp links to this repository (so `import ... from 'conduit-mcp'` resolves
// to the built dist/ through package.json "exports"), ts blocks type-checked together by one tsc
// run (strict, module nodenext) that also emits them as JavaScript, each then run with plain
// node; each line of an sh block run by /bin/sh with node_modules/.bin on PATH. A block fails
// with its page and line (README.md:42), and its stdout and stderr.
// An authorization URL a block prints (on stdout or stderr) is visited by a non-interactive
// browser (test/helpers/auth-browser.ts), as the user would open it.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Block } from './extract.js';

export const root = path.resolve(import.meta.dirname, '../..');

/** Blocks of these languages run; every other language is output or data. */
const TS = new Set(['ts', 'typescript']);
const JS = new Set(['js', 'javascript', 'mjs']);
const SH = new Set(['sh', 'bash', 'shell']);
/** Lines of an sh block that install from a registry: not run (the project is linked already). */
const INSTALL = /^(npm (install|i|ci|add)|pnpm (add|install|i)|yarn add|bun add)(\s|$)/;

export interface ProjectOptions {
  /** Placeholders and other variables every block gets. */
  env: Record<string, string>;
  /** The origin of the authorization server whose /authorize URLs are visited, with `visit`. */
  authorizationOrigin?: string;
  /** Opens an authorization URL as the user would (signs in, consents, follows the redirect). */
  visit?: (url: URL) => Promise<unknown>;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function where(block: Block, offset = 0): string {
  return `${block.file}:${block.line + offset}`;
}

function report(block: Block, what: string, ran: Ran, command?: string): string {
  return [
    `${where(block)}: ${what}`,
    ...(command ? [`$ ${command}`] : []),
    '--- stdout ---',
    ran.stdout.trimEnd(),
    '--- stderr ---',
    ran.stderr.trimEnd(),
  ].join('\n');
}

export class ExampleProject {
  readonly dir: string;
  readonly #options: ProjectOptions;
  readonly #env: NodeJS.ProcessEnv;
  /** Each ts block's index in src/ (b<index>.ts). */
  readonly #index = new Map<Block, number>();
  /** tsc's errors, by block. */
  readonly #typeErrors = new Map<Block, string[]>();
  #tscFailure: string | undefined;

  private constructor(options: ProjectOptions) {
    this.#options = options;
    this.dir = mkdtempSync(path.join(tmpdir(), 'conduit-docs-'));
    const home = path.join(this.dir, '.home');
    mkdirSync(home);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: [
        path.join(this.dir, '.shims'),
        path.join(this.dir, 'node_modules/.bin'),
        path.dirname(process.execPath),
        process.env.PATH,
      ].join(path.delimiter),
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      CONDUIT_MCP_HISTORY: path.join(home, '.conduit-mcp_history'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      ...options.env,
    };
    // The test runner's own variables are not the user's.
    delete env.NODE_TEST_CONTEXT;
    delete env.NODE_OPTIONS;
    this.#env = env;
  }

  /** Writes the project, its blocks, and type-checks (and emits) every ts block in one tsc run. */
  static async create(blocks: Block[], options: ProjectOptions): Promise<ExampleProject> {
    const project = new ExampleProject(options);
    await project.#prepare(blocks);
    return project;
  }

  async #prepare(blocks: Block[]): Promise<void> {
    const dir = this.dir;
    writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`);
    mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
    symlinkSync(root, path.join(dir, 'node_modules/conduit-mcp'), 'dir');
    // The optional peer a page's OpenTelemetry example imports, with the SDK it sets up: what a
    // reader installs beside conduit-mcp (this repository's dev dependencies).
    symlinkSync(
      path.join(root, 'node_modules/@opentelemetry'),
      path.join(dir, 'node_modules/@opentelemetry'),
      'dir',
    );
    // What npm writes for a bin on install: a link to dist/cli/main.js. The build leaves that
    // file without the execute bit (npm sets it when it installs), so the link is a shim.
    writeFileSync(
      path.join(dir, 'node_modules/.bin/conduit-mcp'),
      `#!/bin/sh\nexec node "${path.join(dir, 'node_modules/conduit-mcp/dist/cli/main.js')}" "$@"\n`,
      { mode: 0o755 },
    );
    // `npx <bin>` runs the project's own node_modules/.bin/<bin>, as npx does, without npm's
    // start-up (about 1.5 s of CPU a line); anything else goes to the real npx.
    mkdirSync(path.join(dir, '.shims'));
    writeFileSync(
      path.join(dir, '.shims/npx'),
      `#!/bin/sh\nif [ -x "${path.join(dir, 'node_modules/.bin')}/$1" ]; then bin=$1; shift; exec "${path.join(dir, 'node_modules/.bin')}/$bin" "$@"; fi\nexec "${path.join(path.dirname(process.execPath), 'npx')}" "$@"\n`,
      { mode: 0o755 },
    );
    mkdirSync(path.join(dir, 'src'));
    mkdirSync(path.join(dir, 'js'));
    blocks.forEach((block, index) => {
      if (TS.has(block.lang)) {
        this.#index.set(block, index);
        writeFileSync(path.join(dir, 'src', `b${index}.ts`), block.code);
      } else if (JS.has(block.lang)) {
        this.#index.set(block, index);
        writeFileSync(path.join(dir, 'js', `b${index}.mjs`), block.code);
      }
    });
    const tsBlocks = blocks.filter((block) => TS.has(block.lang));
    if (tsBlocks.length === 0) return;
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
          skipLibCheck: true,
          noEmit: false,
          rootDir: 'src',
          outDir: 'out',
        },
        include: ['src/*.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [tsc, '-p', 'tsconfig.json', '--pretty', 'false'],
        { cwd: dir },
        (_, stdout) => resolve(stdout),
      );
    });
    const byFile = new Map(tsBlocks.map((block) => [`src/b${this.#index.get(block)}.ts`, block]));
    let last: string[] | undefined;
    for (const line of output.split('\n')) {
      const error = /^(src\/b\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      if (error) {
        const block = byFile.get(error[1]!)!;
        last = this.#typeErrors.get(block) ?? [];
        this.#typeErrors.set(block, last);
        last.push(`${where(block, Number(error[2]))}:${error[3]}: ${error[4]}`);
      } else if (line.trim() !== '' && last && /^\s/.test(line)) {
        last.push(line);
      } else if (line.trim() !== '') {
        this.#tscFailure = `${this.#tscFailure ?? ''}${line}\n`;
      }
    }
  }

  /** Runs one block: undefined when it did what it should, else what went wrong (file:line first). */
  async check(block: Block): Promise<string | undefined> {
    if (block.optionError) return `${where(block)}: ${block.optionError}`;
    if (block.lang === '')
      return `${where(block)}: a fence without a language; write ts, sh, text, json, ... after the backticks`;
    if (TS.has(block.lang)) {
      if (this.#tscFailure) return `${where(block)}: tsc failed:\n${this.#tscFailure}`;
      const errors = this.#typeErrors.get(block);
      if (errors) return `${where(block)}: type errors:\n${errors.join('\n')}`;
      return this.#program(block, path.join('out', `b${this.#index.get(block)}.js`));
    }
    if (JS.has(block.lang)) return this.#program(block, path.join('js', `b${this.#index.get(block)}.mjs`));
    if (SH.has(block.lang)) return this.#shell(block);
    return undefined;
  }

  async #program(block: Block, file: string): Promise<string | undefined> {
    const ran = await this.#run(process.execPath, [file], block);
    const failure = this.#outcome(block, ran, `node ${file}`);
    if (failure) return failure;
    if (ran.stdout.trim() === '')
      return report(block, 'printed nothing on stdout; an example shows that it worked', ran);
    return undefined;
  }

  async #shell(block: Block): Promise<string | undefined> {
    const lines = block.code.split('\n');
    for (const [offset, text] of lines.entries()) {
      const line = text.trim();
      if (line === '' || line.startsWith('#') || INSTALL.test(line)) continue;
      const at = { ...block, line: block.line + 1 + offset };
      if (line.endsWith('\\')) return `${where(at)}: one command per line, no \\ continuation`;
      const ran = await this.#run('/bin/sh', ['-c', line], block);
      const failure = this.#outcome(at, ran, line);
      if (failure) return failure;
    }
    return undefined;
  }

  #outcome(block: Block, ran: Ran, command: string): string | undefined {
    if (ran.timedOut) return report(block, `did not finish within ${block.options.timeout} ms`, ran, command);
    if (ran.code !== block.options.exit) {
      const how = ran.signal ? `killed by ${ran.signal}` : `exit code ${ran.code}`;
      return report(block, `${how}, expected ${block.options.exit}`, ran, command);
    }
    return undefined;
  }

  /** Runs a command in the project, its own process group (killed whole on timeout). */
  #run(command: string, args: string[], block: Block): Promise<Ran> {
    const child = spawn(command, args, {
      cwd: this.dir,
      env: this.#env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ran: Ran = { code: null, signal: null, timedOut: false, stdout: '', stderr: '' };
    const visited = new Set<string>();
    const { authorizationOrigin, visit } = this.#options;
    const authorize =
      authorizationOrigin && visit
        ? new RegExp(`${escapeRegExp(authorizationOrigin)}/authorize\\?[^\\s"'<>]+`, 'g')
        : undefined;
    const watch = () => {
      if (!authorize) return;
      for (const [url] of `${ran.stdout}\n${ran.stderr}`.matchAll(authorize)) {
        if (visited.has(url)) continue;
        visited.add(url);
        visit!(new URL(url)).catch((error: unknown) => {
          ran.stderr += `\n[harness] the browser visit of ${url} failed: ${String(error)}\n`;
        });
      }
    };
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      ran.stdout += text;
      watch();
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      ran.stderr += text;
      watch();
    });
    child.stdin.on('error', () => {});
    child.stdin.end(block.options.stdin ?? '');
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      ran.timedOut = true;
      killGroup();
    }, block.options.timeout);
    return new Promise((resolve) => {
      child.once('error', (error) => {
        ran.stderr += `\n[harness] ${String(error)}\n`;
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        // Whatever the block left running in its group goes with it.
        killGroup();
        ran.code = code;
        ran.signal = signal;
        resolve(ran);
      });
    });
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
