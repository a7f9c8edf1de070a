// Windows lane (npm run test:windows): executable resolution, batch files and the environment,
// on Windows Node with real files and real processes.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { WINDOWS_INHERITED_ENV } from '../../src/transport/stdio/environment.js';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { failedStart, requestOver } from '../helpers/transport.js';
import { guardProcesses, requireWindows } from './processes.js';

requireWindows();
guardProcesses();

const FAST = { stdinGrace: 1000, termGrace: 1000, stderr: 'discard' } as const;
const directory = temporaryDirectory();
const nodeDirectory = path.dirname(process.execPath);
const echo = fixture('echo.mjs');

/** Runs `use` with a started transport, then closes it and waits until its process is gone. */
async function withServer<T>(options: StdioOptions, use: (transport: StdioTransport) => Promise<T>) {
  const transport = new StdioTransport({ ...FAST, ...options });
  try {
    await transport.start();
    return await use(transport);
  } finally {
    await transport.close();
    await transport.exited;
  }
}

async function serverExecPath(options: StdioOptions): Promise<string> {
  return withServer(
    options,
    async (transport) => ((await requestOver(transport, 'execPath')) as { execPath: string }).execPath,
  );
}

/** Starts a transport that must be refused with ConfigError before any process runs. */
async function refusedStart(options: StdioOptions): Promise<ConfigError> {
  const transport = new StdioTransport({ ...FAST, ...options });
  const error = await transport.start().then(
    async () => {
      await transport.close();
      await transport.exited;
      assert.fail('start() should have been refused');
    },
    (rejection: unknown) => rejection,
  );
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
  assert.equal(transport.pid, undefined, 'no process was started');
  assert.equal(transport.closeReason?.type, 'spawn_failed');
  assert.deepEqual(await transport.exited, { code: null, signal: null });
  return error;
}

function makeDirectory(name: string): string {
  const full = path.join(directory, name);
  mkdirSync(full, { recursive: true });
  return full;
}

/** A batch file that leaves `<name>.ran` beside itself when cmd.exe runs it, then runs the echo server. */
function batchServer(folder: string, name: string): { file: string; ran: string } {
  const file = path.join(folder, name);
  const ran = `${file}.ran`;
  writeFileSync(file, `@echo off\r\ntype nul > "${ran}"\r\n"${process.execPath}" "${echo}" %*\r\n`);
  return { file, ran };
}

// ---------------------------------------------------------------------------------------------
// PATHEXT, against real files.

test('a bare name is found through PATHEXT in the PATH the child gets: node runs node.exe', async () => {
  const env = { PATH: `${path.join(directory, 'no-such-directory')};${nodeDirectory}` };
  for (const command of ['node', 'NODE', 'node.exe']) {
    const execPath = await serverExecPath({ command, args: [echo], env });
    assert.equal(execPath.toLowerCase(), process.execPath.toLowerCase(), command);
  }
});

test('PATHEXT order picks between tool.exe and tool.cmd in one directory; an earlier directory wins', async () => {
  const both = makeDirectory('both');
  const exe = path.join(both, 'tool.exe');
  copyFileSync(process.execPath, exe);
  const cmd = batchServer(both, 'tool.cmd');
  const cmdOnly = makeDirectory('cmd-only');
  const earlier = batchServer(cmdOnly, 'tool.cmd');

  const execPath = await serverExecPath({ command: 'tool', args: [echo], env: { PATH: both } });
  assert.equal(execPath.toLowerCase(), exe.toLowerCase(), 'the default PATHEXT puts .EXE before .CMD');

  const cmdFirst = await refusedStart({
    command: 'tool',
    args: [echo],
    env: { PATH: both, PATHEXT: '.CMD;.EXE' },
  });
  assert.match(cmdFirst.message, new RegExp(`^${escapeRegExp(cmd.file)} is a batch file`, 'i'));

  const earlierFirst = await refusedStart({
    command: 'tool',
    args: [echo],
    env: { PATH: `${cmdOnly};${both}` },
  });
  assert.match(earlierFirst.message, new RegExp(`^${escapeRegExp(earlier.file)} is a batch file`, 'i'));
  assert.equal(existsSync(cmd.ran), false, 'no batch file ran');
  assert.equal(existsSync(earlier.ran), false, 'no batch file ran');
});

test('a name found in no PATH directory with any PATHEXT extension fails the start and names the PATH', async () => {
  const empty = makeDirectory('empty');
  const { error } = await failedStart({ command: 'conduit-no-such-server', env: { PATH: empty } });
  assert.equal(error.message, `conduit-no-such-server was not found in PATH=${empty}`);
});

// ---------------------------------------------------------------------------------------------
// Batch files.

const REFUSED =
  ' is a batch file, which Windows runs through cmd.exe where arguments are parsed again; ' +
  'set allowBatchFiles: true to allow it, or point command at the real executable (e.g. node.exe)';

test('.cmd and .bat are refused by default, by path or found through PATHEXT, and never run', async () => {
  const folder = makeDirectory('refused');
  const cmd = batchServer(folder, 'server.cmd');
  const bat = batchServer(folder, 'other.bat');
  for (const [command, file, env] of [
    [cmd.file, cmd.file, {}],
    [bat.file, bat.file, {}],
    ['server', cmd.file, { PATH: folder }],
    ['other', bat.file, { PATH: folder }],
  ] as const) {
    const error = await refusedStart({ command, args: ['-y', 'server'], env });
    assert.equal(error.key, 'allowBatchFiles');
    assert.equal(error.message.toLowerCase(), (file + REFUSED).toLowerCase());
  }
  assert.equal(existsSync(cmd.ran), false, `${cmd.ran} exists: the .cmd ran`);
  assert.equal(existsSync(bat.ran), false, `${bat.ran} exists: the .bat ran`);
});

/** Arguments that need quoting for cmd.exe but hold none of its metacharacters. */
const SAFE_ARGS = [
  '-y',
  '@scope/server',
  'C:\\data dir\\x',
  '--flag=1',
  "it's",
  '(paren)',
  'a,b;c',
  '!bang',
  '',
];

test('allowBatchFiles: a .cmd and a .bat run through cmd.exe and receive their arguments literally', async () => {
  const folder = makeDirectory('allowed(1),x=y');
  for (const name of ['server.cmd', 'server.bat']) {
    const batch = batchServer(folder, name);
    const argv = await withServer(
      { command: batch.file, args: SAFE_ARGS, allowBatchFiles: true },
      async (transport) => ((await requestOver(transport, 'argv')) as { argv: string[] }).argv,
    );
    assert.deepEqual(argv, SAFE_ARGS, name);
    assert.equal(existsSync(batch.ran), true, `${name} ran (so a marker file shows a batch file that ran)`);
  }
  const viaPath = await withServer(
    { command: 'server', args: ['found'], allowBatchFiles: true, env: { PATH: folder } },
    async (transport) => ((await requestOver(transport, 'argv')) as { argv: string[] }).argv,
  );
  assert.deepEqual(viaPath, ['found']);
});

test('allowBatchFiles: an argument with any of "%^&|<> or a line break is refused, and no injected command runs', async () => {
  const folder = makeDirectory('injection');
  const batch = batchServer(folder, 'server.cmd');
  const injected = path.join(folder, 'injected.txt');
  const payloads = [
    `" & type nul > "${injected}" & "`,
    `& type nul > "${injected}"`,
    `| type nul > "${injected}"`,
    `^& type nul > "${injected}"`,
    `%COMSPEC% /c type nul > "${injected}"`,
    `> "${injected}"`,
    `x\r\ntype nul > "${injected}"`,
    `x\ntype nul > "${injected}"`,
    '<nul',
    '%PATH%',
  ];
  for (const payload of payloads) {
    const error = await refusedStart({ command: batch.file, args: ['-y', payload], allowBatchFiles: true });
    assert.equal(error.key, 'allowBatchFiles');
    assert.equal(
      error.message,
      'args[1] contains one of "%^&|<> or a line break, which cmd.exe would interpret; batch files cannot ' +
        'receive it safely: point command at the real executable (e.g. node.exe) instead',
      JSON.stringify(payload),
    );
  }
  assert.equal(existsSync(injected), false, `${injected} exists: an injected command ran`);
  assert.equal(existsSync(batch.ran), false, 'the batch file never ran');
});

test('the same hostile arguments reach node.exe literally: only batch files need the refusal', async () => {
  const folder = makeDirectory('direct');
  const injected = path.join(folder, 'injected.txt');
  const args = [`" & type nul > "${injected}" & "`, '%PATH%', 'a|b', '<x>', '^', 'a"b', 'back\\slash\\'];
  const argv = await withServer(
    { command: process.execPath, args: [echo, ...args] },
    async (transport) => ((await requestOver(transport, 'argv')) as { argv: string[] }).argv,
  );
  assert.deepEqual(argv, args);
  assert.equal(existsSync(injected), false, `${injected} exists: a shell ran an argument`);
});

// ---------------------------------------------------------------------------------------------
// The environment.

/**
 * libuv (Node's process layer) copies these from this process into a Windows child's environment
 * when the given one lacks them: they reach a server whatever the allowlist says.
 */
const LIBUV_REQUIRED = [
  'HOMEDRIVE',
  'HOMEPATH',
  'LOGONSERVER',
  'PATH',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERDOMAIN',
  'USERNAME',
  'USERPROFILE',
  'WINDIR',
];

async function childEnv(extra: Partial<StdioOptions> = {}): Promise<Record<string, string>> {
  return withServer(
    { command: process.execPath, args: [echo], ...extra },
    async (transport) => ((await requestOver(transport, 'env')) as { env: Record<string, string> }).env,
  );
}

async function withParentEnv<T>(values: Record<string, string>, use: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return await use();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The keys of `env` that equal `name` when case is ignored. */
const keysNamed = (env: Record<string, string>, name: string) =>
  Object.keys(env).filter((key) => key.toUpperCase() === name.toUpperCase());

const LEAKS = {
  CONDUIT_TEST_LEAK: 'x',
  NODE_OPTIONS: '--max-old-space-size=4096',
  HTTPS_PROXY: 'http://proxy.invalid:3128',
  AWS_SECRET_ACCESS_KEY: 'parent-only-secret',
  ComSpec: process.env.ComSpec ?? 'C:\\Windows\\system32\\cmd.exe',
};

test('only the Windows allowlist is inherited, matched without regard to case', async () => {
  const markers = {
    appdata: 'C:\\conduit\\appdata',
    LocalAppData: 'C:\\conduit\\localappdata',
    ProgramFiles: 'C:\\conduit\\programs',
  };
  await withParentEnv({ ...markers, ...LEAKS }, async () => {
    const env = await childEnv();
    for (const [name, value] of Object.entries(markers)) {
      assert.deepEqual(keysNamed(env, name), [name.toUpperCase()], `one ${name}, under the allowlist's name`);
      assert.equal(env[name.toUpperCase()], value, name);
    }
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.PATHEXT, process.env.PATHEXT);
    for (const name of Object.keys(LEAKS)) assert.deepEqual(keysNamed(env, name), [], `${name} leaked`);
    // Wine's loader adds its own WINE* variables to every process it starts; Windows adds none.
    const allowed = new Set([...WINDOWS_INHERITED_ENV, ...LIBUV_REQUIRED]);
    const unexpected = Object.keys(env).filter(
      (key) => !allowed.has(key.toUpperCase()) && !key.toUpperCase().startsWith('WINE'),
    );
    assert.deepEqual(unexpected, []);
  });
});

test('env wins over an inherited variable spelt in another case, and a () value is not inherited', async () => {
  await withParentEnv(
    { APPDATA: 'C:\\parent\\appdata', LOCALAPPDATA: '() { :; }; echo shellshock' },
    async () => {
      const env = await childEnv({ env: { AppData: 'C:\\given\\appdata', CONDUIT_GIVEN: 'given' } });
      assert.deepEqual(keysNamed(env, 'APPDATA'), ['AppData']);
      assert.equal(env.AppData, 'C:\\given\\appdata');
      assert.equal(env.CONDUIT_GIVEN, 'given');
      assert.deepEqual(keysNamed(env, 'LOCALAPPDATA'), []);
    },
  );
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
