// Windows lane (npm run test:windows): npm's .cmd shims, written by npm for Windows itself, run as
// the node script they start; a full path with spaces (C:\Program Files\nodejs\node.exe) as the
// command. scripts/windows-lane.mjs lays out a Node install as Windows has it in
// `Program Files\nodejs` (node.exe, npm.cmd, npx.cmd, node_modules\npm) and packs
// test/fixtures/npm-bin-package (its bin the echo server); here that npm installs it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { ConfigError } from '../../src/errors.js';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { requestOver } from '../helpers/transport.js';
import { guardProcesses, requireWindows } from './processes.js';

requireWindows();
guardProcesses();

const run = promisify(execFile);
const nodejs = path.resolve('Program Files', 'nodejs');
const node = path.join(nodejs, 'node.exe');
const binPackage = path.resolve('npm-bin-package');
const directory = temporaryDirectory();
const project = path.join(directory, 'my project');
const marker = path.join(directory, 'injected.txt');
/** Arguments cmd.exe would read: they must reach the server as they are. */
const HOSTILE = [
  `" & type nul > "${marker}" & "`,
  '%PATH%',
  'a|b',
  '<x>',
  '^',
  'a"b',
  'back\\slash\\',
  'a b',
  '',
];

/** npm for Windows, run by node.exe: `npm ...args` with its cache in the temporary directory. */
async function npm(args: string[], cwd: string): Promise<void> {
  const env = {
    ...process.env,
    npm_config_cache: path.join(directory, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  const cli = path.join(nodejs, 'node_modules', 'npm', 'bin', 'npm-cli.js');
  await run(node, [cli, ...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env,
    timeout: 180_000,
  }).catch((error: { stderr?: string; message: string }) =>
    assert.fail(`npm ${args.join(' ')} failed: ${error.stderr || error.message}`),
  );
}

before(
  async () => {
    const tarball = readdirSync(binPackage).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, `the lane packed the package with a bin into ${binPackage}`);
    // A global install into the Node folder (Windows npm's default prefix: the shim beside
    // node.exe), and a project's own (the shim in node_modules\.bin, no node.exe beside it).
    mkdirSync(project, { recursive: true });
    await Promise.all([
      npm(['install', '--global', '--prefix', nodejs, path.join(binPackage, tarball)], directory),
      npm(['install', '--prefix', project, path.join(binPackage, tarball)], project),
    ]);
  },
  { timeout: 400_000 },
);

/** Starts the server, asks it for what `methods` name, closes it and waits until it is gone. */
async function ask(options: StdioOptions, ...methods: string[]): Promise<Record<string, unknown>> {
  const transport = new StdioTransport({
    stdinGrace: 1000,
    termGrace: 1000,
    stderr: 'discard',
    stderrTail: 4096,
    ...options,
  });
  try {
    await transport.start();
    const answers: Record<string, unknown> = {};
    for (const method of methods) Object.assign(answers, await requestOver(transport, method, 60_000));
    return answers;
  } catch (error) {
    // The close reason carries the server's last stderr: what npm said, when npx fails.
    throw new Error(`${(error as Error).message}: ${JSON.stringify(transport.closeReason)}`, {
      cause: error,
    });
  } finally {
    await transport.close();
    await transport.exited;
  }
}

const sameFile = (a: unknown, b: string) => String(a).toLowerCase() === b.toLowerCase();

test('npm for Windows wrote the shims: a .cmd beside node.exe and one in node_modules\\.bin', () => {
  for (const shim of [
    path.join(nodejs, 'conduit-shim-server.cmd'),
    path.join(project, 'node_modules', '.bin', 'conduit-shim-server.cmd'),
  ]) {
    assert.ok(existsSync(shim), `${shim} exists`);
    assert.match(readFileSync(shim, 'utf8'), /"%_prog%" +"%dp0%\\[^"]*server\.mjs" %\*/);
  }
});

test('a global bin found through PATH runs with node.exe beside it: no cmd.exe, arguments untouched', async () => {
  const answers = await ask(
    { command: 'conduit-shim-server', args: HOSTILE, env: { PATH: nodejs } },
    'argv',
    'execPath',
  );
  assert.deepEqual(answers.argv, HOSTILE);
  assert.ok(sameFile(answers.execPath, node), String(answers.execPath));
  assert.equal(existsSync(marker), false, 'cmd.exe ran an argument');
});

test("a project's bin in node_modules\\.bin runs with the node from PATH, by name or by path", async () => {
  const bin = path.join(project, 'node_modules', '.bin');
  const byName = await ask(
    { command: 'conduit-shim-server', args: HOSTILE, env: { PATH: `${bin};${nodejs}` } },
    'argv',
    'execPath',
  );
  assert.deepEqual(byName.argv, HOSTILE);
  assert.ok(sameFile(byName.execPath, node), String(byName.execPath));
  const byPath = await ask(
    { command: path.join(bin, 'conduit-shim-server.cmd'), args: ['x'], env: { PATH: nodejs } },
    'argv',
  );
  assert.deepEqual(byPath.argv, ['x']);
  assert.equal(existsSync(marker), false, 'cmd.exe ran an argument');
});

test('"command": "npx" works by default: npx.cmd runs npm\'s npx-cli.js with node.exe, arguments untouched', async () => {
  // npm's own log (--loglevel=verbose, on stderr, into a file) names the node and the script it
  // runs as, and the arguments it was given. npm exec then starts the bin through cmd.exe, which
  // Wine's cmd.exe cannot do for npm's shims (their `goto #_undefined_# 2>NUL ||` line): that step
  // is npm's and is not checked here.
  const log = path.join(directory, 'npx-stderr.txt');
  const args = [
    '--offline',
    '--loglevel=verbose',
    'conduit-shim-server',
    'a b',
    '%PATH%',
    `" & type nul > "${marker}`,
  ];
  const transport = new StdioTransport({
    command: 'npx',
    args,
    cwd: project,
    env: {
      // As a user's: Windows' own folders too (npm exec needs cmd.exe).
      PATH: `${nodejs};${process.env.PATH}`,
      npm_config_cache: path.join(directory, 'npm-cache'),
      npm_config_update_notifier: 'false',
    },
    stderr: { file: log },
    stdinGrace: 1000,
    termGrace: 1000,
  });
  await transport.start();
  // Under Wine npm exits once cmd.exe has failed; on Windows the bin would wait for stdin: closed.
  const exited = await Promise.race([transport.exited, new Promise((done) => setTimeout(done, 120_000))]);
  await transport.close();
  await transport.exited;
  const stderr = readFileSync(log, 'utf8');
  assert.ok(exited, `npx ended on its own:\n${stderr}`);
  const cli = /^npm verbose cli (.+)$/m.exec(stderr)?.[1]?.trim();
  assert.equal(
    cli?.toLowerCase(),
    `${node} ${path.join(nodejs, 'node_modules', 'npm', 'bin', 'npm-cli.js')}`.toLowerCase(),
    stderr,
  );
  assert.match(stderr, /^npm verbose title npm exec conduit-shim-server a b %PATH% " & type nul > "/m);
  assert.ok(
    stderr.includes(
      `npm verbose argv "exec" "--offline" "--loglevel" "verbose" "--" "conduit-shim-server" "a b" "%PATH%"`,
    ),
    stderr,
  );
  assert.equal(existsSync(marker), false, 'cmd.exe ran an argument');
});

test('a full path with spaces to node.exe is one path; a relative one with spaces is refused', async () => {
  assert.match(node, / /, 'the Node folder has a space in its path');
  const echo = fixture('echo.mjs');
  const answers = await ask({ command: node, args: [echo, 'a b'] }, 'argv', 'execPath');
  assert.deepEqual(answers.argv, ['a b']);
  assert.ok(sameFile(answers.execPath, node), String(answers.execPath));
  const withoutExtension = await ask({ command: node.replace(/\.exe$/, ''), args: [echo] }, 'execPath');
  assert.ok(sameFile(withoutExtension.execPath, node), String(withoutExtension.execPath));

  for (const command of [path.join('Program Files', 'nodejs', 'node.exe'), `${node} ${echo}`]) {
    assert.throws(
      () => new StdioTransport({ command, args: [echo] }),
      (error: unknown) => error instanceof ConfigError && error.key === 'command',
      command,
    );
  }
});
