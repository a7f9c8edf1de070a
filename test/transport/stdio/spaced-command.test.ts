// A command with whitespace: one path when it is a full path naming an existing executable
// (`C:\Program Files\nodejs\node.exe`), a command line to refuse otherwise. Pure with the platform
// injected, then real processes on this platform; the Windows lane starts node.exe from a folder
// with spaces (test/windows/npm-shim.test.ts).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../../src/errors.js';
import { isSpacedExecutablePath, type Probe } from '../../../src/transport/stdio/executable.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import { fixture, temporaryDirectory } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';
import { requestOver } from '../../helpers/transport.js';

guardProcesses();

/** Windows file names ignore case. */
function windowsFiles(...files: string[]): Probe {
  const existing = new Set(files.map((file) => file.toLowerCase()));
  return (file) => (existing.has(file.toLowerCase()) ? 'executable' : 'missing');
}

const NODE = 'C:\\Program Files\\nodejs\\node.exe';

test('win32: a full path with spaces naming an existing executable is one path', () => {
  const probe = windowsFiles(NODE, '\\\\build host\\tools share\\node.exe');
  for (const command of [
    NODE,
    'c:\\program files\\nodejs\\NODE.EXE',
    'C:/Program Files/nodejs/node.exe',
    // Found as Windows runs it: with a PATHEXT extension.
    'C:\\Program Files\\nodejs\\node',
    '\\\\build host\\tools share\\node.exe',
  ]) {
    assert.equal(isSpacedExecutablePath(command, 'win32', '.COM;.EXE;.BAT;.CMD', probe), true, command);
  }
});

test('win32: a relative command, a missing file, or a path followed by arguments is not one path', () => {
  const probe = windowsFiles(NODE, 'C:\\work\\my tools\\server.exe');
  for (const command of [
    'npx -y server',
    'my tools\\server.exe',
    '.\\my tools\\server.exe',
    // Relative to the current drive's root or to a drive's current folder: not a full path.
    '\\Program Files\\nodejs\\node.exe',
    'C:Program Files\\nodejs\\node.exe',
    'C:\\Program Files\\nodejs\\node.exe server.js',
    `"${NODE}"`,
    'C:\\Program Files\\nodejs\\missing.exe',
    // No PATHEXT extension fits: a script is not an executable.
    'C:\\Program Files\\nodejs\\node.exe.js',
  ]) {
    assert.equal(isSpacedExecutablePath(command, 'win32', '.COM;.EXE;.BAT;.CMD', probe), false, command);
  }
});

test('posix: a full path to an executable file is one path; relative or not executable is not', () => {
  const probe: Probe = (file) =>
    file === '/opt/my tools/server'
      ? 'executable'
      : file === '/opt/my tools/data.js'
        ? 'not-executable'
        : 'missing';
  assert.equal(isSpacedExecutablePath('/opt/my tools/server', 'linux', undefined, probe), true);
  for (const command of [
    'my tools/server',
    './my tools/server',
    '/opt/my tools/data.js',
    '/opt/my tools/x',
    NODE,
  ]) {
    assert.equal(isSpacedExecutablePath(command, 'linux', undefined, probe), false, command);
  }
});

// ---------------------------------------------------------------------------------------------
// Real processes (this platform; the Windows lane does the same with node.exe).

const directory = temporaryDirectory();

test('a full path with spaces to an executable starts as one path, its arguments untouched', async () => {
  const folder = path.join(directory, 'my tools', 'server bin');
  mkdirSync(folder, { recursive: true });
  const executable = path.join(folder, 'echo server');
  // POSIX: a script; on Windows the lane copies node.exe instead.
  writeFileSync(executable, `#!/bin/sh\nexec '${process.execPath}' '${fixture('echo.mjs')}' "$@"\n`);
  chmodSync(executable, 0o755);
  const transport = new StdioTransport({
    command: executable,
    args: ['a b', 'c'],
    stdinGrace: 1000,
    termGrace: 1000,
  });
  try {
    await transport.start();
    assert.deepEqual(await requestOver(transport, 'argv'), { argv: ['a b', 'c'] });
  } finally {
    await transport.close();
    await transport.exited;
  }
});

test('a command line in command, or a relative path with spaces, is refused with the hint to use args', () => {
  const folder = path.join(directory, 'relative tools');
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'server');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  const hint = (command: string) => (error: unknown) =>
    error instanceof ConfigError &&
    error.key === 'command' &&
    // The value itself may be shortened in the message (a long path is); the suggestion names it whole.
    error.message.startsWith('command must be the executable alone, without spaces, got ') &&
    error.message.includes(`put arguments in args (e.g. command: ${JSON.stringify(command.split(' ')[0])}`);
  for (const command of [`${process.execPath} server.js`, 'npx -y server', 'relative tools/missing']) {
    assert.throws(() => new StdioTransport({ command }), hint(command), command);
  }
  // An executable file, but named relative to the cwd: a path with spaces must be a full path.
  const relative = path.relative(process.cwd(), file);
  assert.throws(
    () => new StdioTransport({ command: relative }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes('may contain whitespace only as a full path to an executable'),
  );
});
