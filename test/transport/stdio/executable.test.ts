import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  batchFileInvocation,
  batchFileProblem,
  defaultProbe,
  execFindsWhatWeWould,
  isBatchFile,
  type Probe,
  type ProbeResult,
  type ResolveContext,
  resolveExecutable,
} from '../../../src/transport/stdio/executable.js';
import type { StdioOptions } from '../../../src/transport/stdio/options.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import { fixture, temporaryDirectory } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';
import { failedStart, requestOver } from '../../helpers/transport.js';

guardProcesses();

// ---------------------------------------------------------------------------------------------
// resolveExecutable, pure: the file system is an injected probe.

/** A probe over a fixed set of files, recording every path it was asked about. */
function fakeFileSystem(files: Record<string, ProbeResult>, normalize = (file: string) => file) {
  const asked: string[] = [];
  const probe: Probe = (file) => {
    asked.push(file);
    return files[normalize(file)] ?? 'missing';
  };
  return { probe, asked };
}

/** Windows file names ignore case, and trailing dots and spaces. */
const windowsName = (file: string) => file.toLowerCase().replace(/[. ]+$/, '');

const WIN: ResolveContext = {
  platform: 'win32',
  pathValue: 'C:\\a;C:\\b',
  pathExt: '.COM;.EXE;.BAT;.CMD',
  cwd: 'C:\\work',
};

test('win32: each PATH directory is tried with every PATHEXT extension, in PATHEXT order', () => {
  const { probe, asked } = fakeFileSystem({
    'C:\\b\\tool.cmd': 'executable',
    'C:\\b\\tool.exe': 'executable',
  });
  assert.deepEqual(resolveExecutable('tool', WIN, probe), { ok: true, file: 'C:\\b\\tool.exe' });
  assert.deepEqual(asked, [
    'C:\\a\\tool.com',
    'C:\\a\\tool.exe',
    'C:\\a\\tool.bat',
    'C:\\a\\tool.cmd',
    'C:\\b\\tool.com',
    'C:\\b\\tool.exe',
  ]);
});

test('win32: the PATHEXT the child gets decides the order', () => {
  const { probe } = fakeFileSystem({ 'C:\\b\\tool.cmd': 'executable', 'C:\\b\\tool.exe': 'executable' });
  assert.deepEqual(resolveExecutable('tool', { ...WIN, pathExt: '.CMD;.EXE' }, probe), {
    ok: true,
    file: 'C:\\b\\tool.cmd',
  });
});

test('win32: an earlier PATH directory wins over a preferred extension in a later one', () => {
  const { probe } = fakeFileSystem({ 'C:\\a\\tool.cmd': 'executable', 'C:\\b\\tool.exe': 'executable' });
  assert.deepEqual(resolveExecutable('tool', WIN, probe), { ok: true, file: 'C:\\a\\tool.cmd' });
});

test('win32: without PATHEXT the default .COM;.EXE;.BAT;.CMD is used', () => {
  for (const pathExt of [undefined, '']) {
    const { probe, asked } = fakeFileSystem({});
    resolveExecutable('tool', { ...WIN, pathValue: 'C:\\a', pathExt }, probe);
    assert.deepEqual(asked, ['C:\\a\\tool.com', 'C:\\a\\tool.exe', 'C:\\a\\tool.bat', 'C:\\a\\tool.cmd']);
  }
});

test('win32: PATHEXT entries are trimmed and empty ones skipped', () => {
  const { probe, asked } = fakeFileSystem({});
  resolveExecutable('tool', { ...WIN, pathValue: 'C:\\a', pathExt: ' .EXE ;;.CMD ; ' }, probe);
  assert.deepEqual(asked, ['C:\\a\\tool.exe', 'C:\\a\\tool.cmd']);
});

test('win32: a name whose extension is in PATHEXT is tried as it is first', () => {
  for (const command of ['tool.exe', 'TOOL.EXE', 'tool.Cmd']) {
    const { probe, asked } = fakeFileSystem({});
    resolveExecutable(command, { ...WIN, pathValue: 'C:\\a' }, probe);
    assert.deepEqual(asked, [
      `C:\\a\\${command}`,
      `C:\\a\\${command}.com`,
      `C:\\a\\${command}.exe`,
      `C:\\a\\${command}.bat`,
      `C:\\a\\${command}.cmd`,
    ]);
  }
  const { probe } = fakeFileSystem({ 'C:\\b\\tool.exe': 'executable' });
  assert.deepEqual(resolveExecutable('tool.exe', WIN, probe), { ok: true, file: 'C:\\b\\tool.exe' });
});

test('win32: a name whose extension is not in PATHEXT is not run as it is', () => {
  const { probe, asked } = fakeFileSystem({ 'C:\\a\\server.js': 'executable' });
  assert.deepEqual(resolveExecutable('server.js', { ...WIN, pathValue: 'C:\\a' }, probe), {
    ok: false,
    problem: 'missing',
    searched: [
      'C:\\a\\server.js.com',
      'C:\\a\\server.js.exe',
      'C:\\a\\server.js.bat',
      'C:\\a\\server.js.cmd',
    ],
  });
  assert.ok(!asked.includes('C:\\a\\server.js'));
});

test('win32: a command with either separator is a path, resolved against cwd, and PATH is not searched', () => {
  const cases: [string, string][] = [
    ['bin\\tool', 'C:\\work\\bin\\tool'],
    ['bin/tool', 'C:\\work\\bin\\tool'],
    ['.\\tool', 'C:\\work\\tool'],
    ['..\\other\\tool', 'C:\\other\\tool'],
    ['D:\\servers\\tool', 'D:\\servers\\tool'],
    ['\\\\host\\share\\tool', '\\\\host\\share\\tool'],
  ];
  for (const [command, base] of cases) {
    const { probe, asked } = fakeFileSystem({});
    const result = resolveExecutable(command, WIN, probe);
    const expected = ['.com', '.exe', '.bat', '.cmd'].map((ext) => base + ext);
    assert.deepEqual(result, { ok: false, problem: 'missing', searched: expected }, command);
    assert.deepEqual(asked, expected, command);
  }
  const { probe } = fakeFileSystem({ 'D:\\servers\\tool.exe': 'executable' });
  assert.deepEqual(resolveExecutable('D:\\servers\\tool.exe', WIN, probe), {
    ok: true,
    file: 'D:\\servers\\tool.exe',
  });
});

test('win32: empty PATH entries are skipped (they do not mean the current directory), quotes are removed', () => {
  const { probe, asked } = fakeFileSystem({ 'C:\\Program Files\\x\\tool.exe': 'executable' });
  const result = resolveExecutable(
    'tool',
    { ...WIN, pathValue: ';C:\\a;;"C:\\Program Files\\x";', pathExt: '.EXE' },
    probe,
  );
  assert.deepEqual(result, { ok: true, file: 'C:\\Program Files\\x\\tool.exe' });
  assert.deepEqual(asked, ['C:\\a\\tool.exe', 'C:\\Program Files\\x\\tool.exe']);
});

test('win32: the default probe accepts any existing file (Windows has no execute bit)', () => {
  const directory = temporaryDirectory();
  const file = path.join(directory, 'plain.txt');
  writeFileSync(file, 'x');
  chmodSync(file, 0o644);
  assert.equal(defaultProbe(file, 'win32'), 'executable');
  assert.equal(defaultProbe(directory, 'win32'), 'missing');
  assert.equal(defaultProbe(path.join(directory, 'nope'), 'win32'), 'missing');
});

// POSIX, pure.

const POSIX: ResolveContext = { platform: 'linux', pathValue: '/a:/b', pathExt: '.EXE', cwd: '/work' };

test('posix: a name is looked up in each PATH directory in order; PATHEXT means nothing', () => {
  const { probe, asked } = fakeFileSystem({ '/a/tool.exe': 'executable', '/b/tool': 'executable' });
  assert.deepEqual(resolveExecutable('tool', POSIX, probe), { ok: true, file: '/b/tool' });
  assert.deepEqual(asked, ['/a/tool', '/b/tool']);
});

test('posix: a file without the execute bit is passed over for a later one, and reported if alone', () => {
  const both = fakeFileSystem({ '/a/tool': 'not-executable', '/b/tool': 'executable' });
  assert.deepEqual(resolveExecutable('tool', POSIX, both.probe), { ok: true, file: '/b/tool' });
  const alone = fakeFileSystem({ '/a/tool': 'not-executable' });
  assert.deepEqual(resolveExecutable('tool', POSIX, alone.probe), {
    ok: false,
    problem: 'not-executable',
    file: '/a/tool',
  });
});

test('posix: nothing found lists every path searched', () => {
  const { probe } = fakeFileSystem({});
  assert.deepEqual(resolveExecutable('tool', POSIX, probe), {
    ok: false,
    problem: 'missing',
    searched: ['/a/tool', '/b/tool'],
  });
  assert.deepEqual(resolveExecutable('tool', { ...POSIX, pathValue: undefined }, probe), {
    ok: false,
    problem: 'missing',
    searched: [],
  });
});

test('posix: a command with a slash is a path, resolved against cwd; PATH is not searched', () => {
  const cases: [string, string][] = [
    ['./tool', '/work/tool'],
    ['bin/tool', '/work/bin/tool'],
    ['../tool', '/tool'],
    ['/opt/servers/tool', '/opt/servers/tool'],
  ];
  for (const [command, file] of cases) {
    const { probe, asked } = fakeFileSystem({});
    assert.deepEqual(resolveExecutable(command, POSIX, probe), {
      ok: false,
      problem: 'missing',
      searched: [file],
    });
    assert.deepEqual(asked, [file]);
  }
});

test('posix: a backslash is part of a name, not a separator', () => {
  const { asked, probe } = fakeFileSystem({});
  resolveExecutable('bin\\tool', POSIX, probe);
  assert.deepEqual(asked, ['/a/bin\\tool', '/b/bin\\tool']);
});

test('posix: empty PATH entries are skipped, not read as the current directory', () => {
  const { probe, asked } = fakeFileSystem({ '/work/tool': 'executable' });
  const result = resolveExecutable('tool', { ...POSIX, pathValue: ':/a::' }, probe);
  assert.deepEqual(result, { ok: false, problem: 'missing', searched: ['/a/tool'] });
  assert.deepEqual(asked, ['/a/tool']);
});

test('posix: a relative PATH entry is resolved against the child cwd, as the child resolves it', () => {
  const { probe } = fakeFileSystem({ '/work/node_modules/.bin/tool': 'executable' });
  assert.deepEqual(resolveExecutable('tool', { ...POSIX, pathValue: 'node_modules/.bin:/a' }, probe), {
    ok: true,
    file: '/work/node_modules/.bin/tool',
  });
});

test('posix: exec is left to search PATH only when it finds what resolveExecutable would', () => {
  // A path is resolved against cwd by both.
  assert.equal(execFindsWhatWeWould('./server.sh', ''), true);
  assert.equal(execFindsWhatWeWould('/opt/server', undefined), true);
  // exec reads an unset PATH as a default one, and an empty or relative entry as (under) its cwd.
  assert.equal(execFindsWhatWeWould('tool', undefined), false);
  assert.equal(execFindsWhatWeWould('tool', ''), false);
  for (const pathValue of [':/a', '/a::/b', '/a:', 'node_modules/.bin:/a', '/a:.']) {
    assert.equal(execFindsWhatWeWould('tool', pathValue), false, pathValue);
  }
  assert.equal(execFindsWhatWeWould('tool', '/usr/local/bin:/usr/bin:/bin'), true);
  // Each PATH is judged on its own, whatever was asked before.
  assert.equal(execFindsWhatWeWould('other', '/usr/local/bin:/usr/bin:/bin'), true);
  assert.equal(execFindsWhatWeWould('tool', '/usr/bin::/bin'), false);
  assert.equal(execFindsWhatWeWould('tool', '/usr/local/bin:/usr/bin:/bin'), true);
});

test('posix: the default probe tells executable, not executable and missing apart', () => {
  const directory = temporaryDirectory();
  const executable = path.join(directory, 'x');
  const plain = path.join(directory, 'plain');
  writeFileSync(executable, '#!/bin/sh\n');
  writeFileSync(plain, '#!/bin/sh\n');
  chmodSync(executable, 0o755);
  chmodSync(plain, 0o644);
  assert.equal(defaultProbe(executable, 'linux'), 'executable');
  assert.equal(defaultProbe(plain, 'linux'), 'not-executable');
  assert.equal(defaultProbe(directory, 'linux'), 'missing', 'a directory is not a program');
  assert.equal(defaultProbe(path.join(directory, 'nope'), 'linux'), 'missing');
});

// ---------------------------------------------------------------------------------------------
// Real processes: the executable is resolved when the transport starts, in the child's PATH.

const FAST = { stdinGrace: 1000, termGrace: 1000 } as const;

const directory = temporaryDirectory();
const emptyDirectory = path.join(directory, 'empty');
mkdirSync(emptyDirectory);

/** Writes a shell script that runs the echo fixture server with its own arguments. */
function writeServerScript(file: string, mode = 0o755): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\nexec '${process.execPath}' '${fixture('echo.mjs')}' "$@"\n`);
  chmodSync(file, mode);
  return file;
}

/** Starts the transport, asks the echo server for its argv, and stops it. */
async function argvOf(options: StdioOptions): Promise<unknown> {
  const transport = new StdioTransport({ ...FAST, ...options });
  try {
    await transport.start();
    return await requestOver(transport, 'argv');
  } finally {
    await transport.close();
    await transport.exited;
  }
}

test('a name is found through the PATH given in env, not this process PATH, when start() runs', async () => {
  const bin = path.join(directory, 'child-bin');
  const options = { command: 'conduit-echo-server', args: ['--flag', 'x'], env: { PATH: bin } };
  // This process cannot find it...
  const parentLookup = resolveExecutable('conduit-echo-server', {
    platform: process.platform,
    pathValue: process.env.PATH,
    pathExt: undefined,
    cwd: process.cwd(),
  });
  assert.equal(parentLookup.ok, false);
  // ...the transport is made before the script exists: nothing is looked up at construction...
  const transport = new StdioTransport({ ...FAST, ...options });
  writeServerScript(path.join(bin, 'conduit-echo-server'));
  // ...and the child's PATH finds it at start.
  try {
    await transport.start();
    assert.deepEqual(await requestOver(transport, 'argv'), { argv: ['--flag', 'x'] });
  } finally {
    await transport.close();
    await transport.exited;
  }
});

test('a name in this process PATH but not in the child PATH is not found', async () => {
  const error = (await failedStart({ command: 'node', env: { PATH: emptyDirectory } })).error;
  assert.equal(error.message, `node was not found in PATH=${emptyDirectory}`);
  assert.equal(error.command, 'node');
  assert.equal(error.retryable, false);
});

test('a missing command closes with spawn_failed; the error names the command and the PATH searched', async () => {
  const error = (await failedStart({ command: 'conduit-no-such-server' })).error;
  assert.equal(error.message, `conduit-no-such-server was not found in PATH=${process.env.PATH}`);
  assert.equal(error.command, 'conduit-no-such-server');
  assert.equal(error.retryable, false);
});

test('a missing path is reported against the cwd it was resolved in', async () => {
  const error = (await failedStart({ command: './conduit-missing.sh', cwd: emptyDirectory })).error;
  assert.equal(error.message, `./conduit-missing.sh was not found (resolved against ${emptyDirectory})`);
  const absolute = (await failedStart({ command: path.join(emptyDirectory, 'missing') })).error;
  assert.equal(
    absolute.message,
    `${path.join(emptyDirectory, 'missing')} was not found (resolved against ${process.cwd()})`,
  );
});

test('a file without the execute bit fails to start with EACCES, by name and by path', async () => {
  const bin = path.join(directory, 'not-executable-bin');
  const file = writeServerScript(path.join(bin, 'conduit-plain-file'), 0o644);
  const expected = `${file} is not executable (EACCES): check its permissions (chmod +x) or run it through its interpreter`;
  for (const options of [{ command: 'conduit-plain-file', env: { PATH: bin } }, { command: file }]) {
    const error = (await failedStart(options)).error;
    assert.equal(error.message, expected);
    assert.match(error.message, /EACCES/);
    assert.match(error.message, /not executable/);
    assert.equal(error.retryable, false);
  }
});

test('a non-executable file earlier in PATH is passed over for an executable one later', async () => {
  const first = path.join(directory, 'shadow-first');
  const second = path.join(directory, 'shadow-second');
  writeServerScript(path.join(first, 'conduit-shadowed'), 0o644);
  writeServerScript(path.join(second, 'conduit-shadowed'));
  mkdirSync(path.join(directory, 'shadow-dir', 'conduit-shadowed'), { recursive: true });
  const pathValue = [path.join(directory, 'shadow-dir'), first, second].join(':');
  assert.deepEqual(await argvOf({ command: 'conduit-shadowed', args: ['ok'], env: { PATH: pathValue } }), {
    argv: ['ok'],
  });
});

test('a relative command is resolved against the child cwd', async () => {
  const cwd = path.join(directory, 'relative-command');
  writeServerScript(path.join(cwd, 'server.sh'));
  writeServerScript(path.join(cwd, 'bin', 'server'));
  assert.deepEqual(await argvOf({ command: './server.sh', args: ['1'], cwd }), { argv: ['1'] });
  assert.deepEqual(await argvOf({ command: 'bin/server', args: ['2'], cwd }), { argv: ['2'] });
});

test('a relative PATH entry is resolved against the child cwd', async () => {
  const cwd = path.join(directory, 'relative-path-entry');
  writeServerScript(path.join(cwd, 'tools', 'conduit-relative-entry'));
  assert.deepEqual(
    await argvOf({
      command: 'conduit-relative-entry',
      args: ['3'],
      cwd,
      env: { PATH: `tools:${emptyDirectory}` },
    }),
    { argv: ['3'] },
  );
});

test('an empty PATH entry never runs a file from the cwd, though exec would read it as the cwd', async () => {
  const cwd = path.join(directory, 'empty-entry-cwd');
  const marker = path.join(directory, 'empty-entry-ran');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(path.join(cwd, 'conduit-cwd-only'), `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path.join(cwd, 'conduit-cwd-only'), 0o755);
  for (const pathValue of [`:${emptyDirectory}`, `${emptyDirectory}::${emptyDirectory}`]) {
    const error = (await failedStart({ command: 'conduit-cwd-only', cwd, env: { PATH: pathValue } })).error;
    assert.equal(error.message, `conduit-cwd-only was not found in PATH=${pathValue}`);
  }
  assert.equal(existsSync(marker), false);
});

test('a PATH of absolute entries: exec searches it, and a failure is still explained by name', async () => {
  const bin = path.join(directory, 'exec-search-bin');
  writeServerScript(path.join(bin, 'conduit-exec-found'));
  const pathValue = `${emptyDirectory}:${bin}`;
  assert.deepEqual(await argvOf({ command: 'conduit-exec-found', args: ['a b'], env: { PATH: pathValue } }), {
    argv: ['a b'],
  });
  const missing = (await failedStart({ command: 'conduit-exec-missing', env: { PATH: pathValue } })).error;
  assert.equal(missing.message, `conduit-exec-missing was not found in PATH=${pathValue}`);
  assert.equal(missing.retryable, false);
  const broken = path.join(bin, 'conduit-exec-broken');
  writeFileSync(broken, '#!/conduit/no/such/interpreter\n');
  chmodSync(broken, 0o755);
  const notStarted = (await failedStart({ command: 'conduit-exec-broken', env: { PATH: pathValue } })).error;
  assert.equal(
    notStarted.message,
    `${broken} could not be started: spawn conduit-exec-broken ENOENT: the file exists, so its ` +
      'interpreter (the #! line) or a library it loads is missing',
  );
  assert.equal(notStarted.retryable, false);
});

test('an executable whose #! interpreter is missing fails to start and says so', async () => {
  const file = path.join(directory, 'bad-interpreter');
  writeFileSync(file, '#!/conduit/no/such/interpreter\n');
  chmodSync(file, 0o755);
  const error = (await failedStart({ command: file })).error;
  assert.equal(
    error.message,
    `${file} could not be started: spawn ${file} ENOENT: the file exists, so its interpreter ` +
      '(the #! line) or a library it loads is missing',
  );
  assert.equal(error.retryable, false);
  assert.equal((error.cause as NodeJS.ErrnoException).code, 'ENOENT');
});

// ---------------------------------------------------------------------------------------------
// Windows batch files (pure: the platform is injected).

const REFUSED_BATCH =
  ' is a batch file, which Windows runs through cmd.exe where arguments are parsed again; ' +
  'set allowBatchFiles: true to allow it, or point command at the real executable (e.g. node.exe)';

test('isBatchFile: .bat and .cmd in any case, trailing dots and spaces ignored, on Windows only', () => {
  for (const file of [
    'C:\\x\\run.bat',
    'C:\\x\\RUN.BAT',
    'C:\\x\\npx.cmd',
    'C:\\x\\npx.Cmd',
    'C:\\x\\run.bat.',
    'C:\\x\\run.cmd ',
    'C:\\x\\run.bat. .',
    'run.bat',
  ]) {
    assert.equal(isBatchFile(file, 'win32'), true, file);
    assert.equal(isBatchFile(file, 'linux'), false, file);
    assert.equal(isBatchFile(file, 'darwin'), false, file);
  }
  for (const file of [
    'C:\\x\\node.exe',
    'C:\\x\\run.batch',
    'C:\\x\\run.bat.exe',
    'C:\\x\\cmd',
    'C:\\x\\bat',
  ]) {
    assert.equal(isBatchFile(file, 'win32'), false, file);
  }
});

test('batchFileProblem: a batch file is refused unless allowBatchFiles', () => {
  for (const file of ['C:\\nodejs\\npx.cmd', 'C:\\x\\RUN.BAT', 'C:\\x\\run.bat.']) {
    assert.equal(batchFileProblem(file, [], false, 'win32'), file + REFUSED_BATCH);
    assert.equal(batchFileProblem(file, ['-y', 'server'], false, 'win32'), file + REFUSED_BATCH);
    assert.equal(batchFileProblem(file, [], true, 'win32'), undefined);
  }
});

test('batchFileProblem: when allowed, an argument with any of "%^&|<> or a line break is still refused', () => {
  const file = 'C:\\nodejs\\npx.cmd';
  const safe = ['-y', '@scope/server', 'C:\\data dir', '--flag=1', "it's", '(paren)', 'a,b;c', '!bang', ''];
  assert.equal(batchFileProblem(file, safe, true, 'win32'), undefined);
  for (const character of ['"', '%', '^', '&', '|', '<', '>', '\r', '\n']) {
    const args = ['-y', `x${character}y`];
    assert.equal(
      batchFileProblem(file, args, true, 'win32'),
      'args[1] contains one of "%^&|<> or a line break, which cmd.exe would interpret; batch files cannot ' +
        'receive it safely: point command at the real executable (e.g. node.exe) instead',
      JSON.stringify(character),
    );
  }
  assert.match(batchFileProblem(file, ['%PATH%'], true, 'win32') ?? '', /^args\[0\] /);
  assert.match(batchFileProblem(file, ['a', 'b', '" & calc & "'], true, 'win32') ?? '', /^args\[2\] /);
});

test('batchFileProblem: not a batch file, or not Windows, is no problem whatever the arguments', () => {
  const hostile = ['" & calc & "', '%PATH%', 'a|b', '<x>', '^'];
  assert.equal(batchFileProblem('C:\\nodejs\\node.exe', hostile, false, 'win32'), undefined);
  assert.equal(batchFileProblem('/usr/local/bin/run.bat', hostile, false, 'linux'), undefined);
  assert.equal(batchFileProblem('/usr/local/bin/run.cmd', hostile, false, 'darwin'), undefined);
});

test('win32: npx resolved through PATHEXT to npx.cmd is recognised as a batch file and refused', () => {
  const files = { 'c:\\nodejs\\npx.cmd': 'executable' } as const;
  for (const pathExt of ['.COM;.EXE;.BAT;.CMD', '.COM;.EXE;.BAT;.CMD ', '.com;.exe;.cmd.']) {
    const { probe } = fakeFileSystem(files, windowsName);
    const found = resolveExecutable('npx', { ...WIN, pathValue: 'C:\\nodejs', pathExt }, probe);
    assert.ok(found.ok, pathExt);
    assert.equal(isBatchFile(found.file, 'win32'), true, `${found.file} (PATHEXT ${pathExt})`);
    assert.equal(batchFileProblem(found.file, ['-y', 'server'], false, 'win32'), found.file + REFUSED_BATCH);
  }
});

test('batchFileInvocation: cmd.exe /d /s /c with one quoted line, verbatim, never a shell option', () => {
  const invocation = batchFileInvocation(
    'C:\\nodejs\\npx.cmd',
    ['-y', 'server'],
    'C:\\Windows\\System32\\cmd.exe',
  );
  assert.deepEqual(invocation, {
    file: 'C:\\Windows\\System32\\cmd.exe',
    args: ['/d', '/s', '/c', '"C:\\nodejs\\npx.cmd -y server"'],
    windowsVerbatimArguments: true,
  });
  assert.ok(!('shell' in invocation), 'Node’s shell option is never set');
});

test('batchFileInvocation: without COMSPEC it is cmd.exe', () => {
  for (const comspec of [undefined, '']) {
    assert.equal(batchFileInvocation('C:\\x\\run.bat', [], comspec).file, 'cmd.exe');
  }
});

test('batchFileInvocation: the file and arguments with spaces or cmd.exe separators are quoted', () => {
  const invocation = batchFileInvocation(
    'C:\\Program Files\\nodejs\\npx.cmd',
    ['', 'a b', 'x=y', 'p(1)', 'semi;colon', 'comma,x', '!bang', 'plain', 'tab\there'],
    'cmd.exe',
  );
  assert.deepEqual(invocation.args, [
    '/d',
    '/s',
    '/c',
    '""C:\\Program Files\\nodejs\\npx.cmd" "" "a b" "x=y" "p(1)" "semi;colon" "comma,x" "!bang" plain "tab\there""',
  ]);
});
