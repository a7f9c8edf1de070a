// npm's Windows shims, read from the texts npm really writes (test/fixtures/npm-shims), with the
// platform injected; the Windows lane (test/windows/npm-shim.test.ts) runs them for real.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  type BatchLaunchContext,
  batchFileLaunch,
  defaultLaunchIo,
  type LaunchIo,
} from '../../../src/transport/stdio/batch-launch.js';
import type { ProbeResult } from '../../../src/transport/stdio/executable.js';
import { parseNpmShim, scriptUnderPrefix } from '../../../src/transport/stdio/npm-shim.js';
import { temporaryDirectory } from '../../helpers/fixtures.js';

const shimDirectory = path.resolve(import.meta.dirname, '../../fixtures/npm-shims');
const shimText = (name: string) => readFileSync(path.join(shimDirectory, name), 'utf8');
const CMD_SHIM_VERSIONS = [2, 3, 4, 5, 6, 7, 8];
const NPM_VERSIONS = [6, 7, 9, 10, 11];

const BIN = 'C:\\project\\node_modules\\.bin';
const NODEJS = 'C:\\Program Files\\nodejs';

test('every cmd-shim version: a bin with #!/usr/bin/env node is node with its script', () => {
  for (const version of CMD_SHIM_VERSIONS) {
    const text = shimText(`cmd-shim-${version}/cli.cmd`);
    assert.match(text, /\r\n/, 'the fixture keeps the CRLF npm writes');
    assert.deepEqual(
      parseNpmShim(text, `${BIN}\\cli.cmd`, 'win32'),
      {
        nodeBeside: `${BIN}\\node.exe`,
        nodeArgs: [],
        script: 'C:\\project\\node_modules\\conduit-shim-bin\\bin\\cli.js',
      },
      `cmd-shim ${version}`,
    );
  }
});

test('a global install: the shim in the prefix starts the script under the prefix', () => {
  const prefix = 'C:\\Users\\Ann Lee\\AppData\\Roaming\\npm';
  assert.deepEqual(parseNpmShim(shimText('cmd-shim-8/global-cli.cmd'), `${prefix}\\cli.cmd`, 'win32'), {
    nodeBeside: `${prefix}\\node.exe`,
    nodeArgs: [],
    script: `${prefix}\\node_modules\\conduit-shim-bin\\bin\\cli.js`,
  });
});

test('the arguments of the #! line (env -S) are given to node before the script', () => {
  // Before cmd-shim 6, env -S was not understood: those shims run a program named -S, not node.
  for (const version of CMD_SHIM_VERSIONS) {
    assert.deepEqual(
      parseNpmShim(shimText(`cmd-shim-${version}/args.cmd`), `${BIN}\\args.cmd`, 'win32')?.nodeArgs,
      version >= 6 ? ['--no-warnings', '--max-old-space-size=100'] : undefined,
      `cmd-shim ${version}`,
    );
  }
});

test('a shim that runs another program, or sets variables first, is not taken for node', () => {
  for (const version of CMD_SHIM_VERSIONS) {
    for (const name of ['sh', 'tool', 'vars']) {
      const text = shimText(`cmd-shim-${version}/${name}.cmd`);
      assert.equal(
        parseNpmShim(text, `${BIN}\\${name}.cmd`, 'win32'),
        undefined,
        `cmd-shim ${version} ${name}`,
      );
    }
  }
});

test("npm's own npx.cmd and npm.cmd, npm 6 to 11: npm's CLI script and its global-prefix query", () => {
  const modules = `${NODEJS}\\node_modules\\npm\\bin`;
  for (const version of NPM_VERSIONS) {
    for (const name of ['npx', 'npm']) {
      const parsed = parseNpmShim(shimText(`npm-${version}/${name}.cmd`), `${NODEJS}\\${name}.cmd`, 'win32');
      // npm 10 and later ask a small script for the prefix, older ones `npm prefix -g`.
      const queryArgs =
        version >= 10 ? [`${modules}\\npm-prefix.js`] : [`${modules}\\npm-cli.js`, 'prefix', '-g'];
      assert.deepEqual(
        parsed,
        {
          nodeBeside: `${NODEJS}\\node.exe`,
          nodeArgs: [],
          script: `${modules}\\${name}-cli.js`,
          globalPrefix: { queryArgs, script: `node_modules\\npm\\bin\\${name}-cli.js` },
        },
        `npm ${version} ${name}.cmd`,
      );
    }
  }
});

test('not Windows: nothing is a shim', () => {
  for (const platform of ['linux', 'darwin'] as const) {
    assert.equal(parseNpmShim(shimText('cmd-shim-8/cli.cmd'), '/x/cli.cmd', platform), undefined);
    assert.equal(parseNpmShim(shimText('npm-11/npx.cmd'), '/x/npx.cmd', platform), undefined);
  }
});

test('line endings and indentation do not matter, any other change does', () => {
  const cli = shimText('cmd-shim-8/cli.cmd');
  const npx = shimText('npm-11/npx.cmd');
  const file = `${BIN}\\cli.cmd`;
  assert.ok(parseNpmShim(cli.replaceAll('\r\n', '\n'), file, 'win32'));
  assert.ok(parseNpmShim(npx.replaceAll('\r\n', '\n').replaceAll('  ', '\t'), `${NODEJS}\\npx.cmd`, 'win32'));
  const edited = [
    `${cli}calc.exe\r\n`,
    `type nul > marker\r\n${cli}`,
    cli.replace('%*', '%* & calc.exe'),
    cli.replace('"%_prog%"  "', '"%_prog%" --inspect & calc "'),
    cli.replace('"%_prog%"  "', '"%_prog%" %EVIL% "'),
    cli.replace('SET "_prog=node"', 'SET "_prog=python"'),
    cli.replace('SET PATHEXT=%PATHEXT:;.JS;=;%\r\n', ''),
    cli.replace('cli.js"', 'cli.js" "second.js"'),
    '',
  ];
  for (const text of edited) assert.equal(parseNpmShim(text, file, 'win32'), undefined, JSON.stringify(text));
  const editedNpx = [
    npx.replace('"%NODE_EXE%" "%NPX_CLI_JS%" %*', '"%NODE_EXE%" "%NPX_CLI_JS%" %* & calc'),
    npx.replace('"%NPM_PREFIX_JS%"', '"%NPM_PREFIX_JS%" & calc'),
    npx.replace('"%NPX_CLI_JS%" %*', '"%UNSET_JS%" %*'),
    npx.replace('SETLOCAL', 'SETLOCAL\r\nSET NODE_OPTIONS=--require evil.js'),
  ];
  for (const text of editedNpx) {
    assert.equal(parseNpmShim(text, `${NODEJS}\\npx.cmd`, 'win32'), undefined, JSON.stringify(text));
  }
});

test('scriptUnderPrefix: the last line the query printed is the prefix, as FOR /F reads it', () => {
  assert.equal(
    scriptUnderPrefix('C:\\Users\\ann\\AppData\\Roaming\\npm\r\n', 'node_modules\\npm\\bin\\npx-cli.js'),
    'C:\\Users\\ann\\AppData\\Roaming\\npm\\node_modules\\npm\\bin\\npx-cli.js',
  );
  assert.equal(scriptUnderPrefix('warning\nD:\\npm\n\n', 'x.js'), 'D:\\npm\\x.js');
  assert.equal(scriptUnderPrefix('', 'x.js'), undefined);
  assert.equal(scriptUnderPrefix('\r\n \r\n', 'x.js'), undefined);
});

// ---------------------------------------------------------------------------------------------
// batchFileLaunch: what is started for a .cmd the command resolved to (file system injected).

const CONTEXT: BatchLaunchContext = {
  platform: 'win32',
  allowBatchFiles: false,
  env: { PATH: 'C:\\tools;C:\\other' },
  cwd: 'C:\\work',
  pathValue: 'C:\\tools;C:\\other',
  pathExt: '.COM;.EXE;.BAT;.CMD;.JS',
  comspec: 'C:\\Windows\\system32\\cmd.exe',
};

/** Shim texts by path, files that exist, and what the prefix query prints (recorded). */
function fakeIo(shims: Record<string, string>, files: string[], printed = '') {
  const queries: string[][] = [];
  const existing = new Set(files.map((file) => file.toLowerCase()));
  const io: LaunchIo = {
    probe: (file): ProbeResult => (existing.has(file.toLowerCase()) ? 'executable' : 'missing'),
    readShim: (file) => shims[file],
    queryPrefix: async (node, args) => {
      queries.push([node, ...args]);
      return printed;
    },
  };
  return { io, queries };
}

const CLI_SHIM = `${BIN}\\cli.cmd`;
const CLI_SCRIPT = 'C:\\project\\node_modules\\conduit-shim-bin\\bin\\cli.js';
const HOSTILE = ['" & calc & "', '%PATH%', 'a|b', '<x>', '^', 'a"b', 'back\\slash\\', ''];

test('a bin shim runs node.exe beside it with the script, the arguments untouched, no cmd.exe', async () => {
  const { io } = fakeIo({ [CLI_SHIM]: shimText('cmd-shim-8/cli.cmd') }, [`${BIN}\\node.exe`, CLI_SCRIPT]);
  assert.deepEqual(await batchFileLaunch(CLI_SHIM, HOSTILE, CONTEXT, io), {
    file: `${BIN}\\node.exe`,
    args: [CLI_SCRIPT, ...HOSTILE],
    windowsVerbatimArguments: false,
  });
});

test('without node.exe beside it, node comes from the PATH without .JS (as the shim has it)', async () => {
  const { io } = fakeIo({ [CLI_SHIM]: shimText('cmd-shim-6/args.cmd') }, [
    'C:\\tools\\node.js',
    'C:\\other\\node.exe',
    'C:\\project\\node_modules\\conduit-shim-bin\\bin\\args.js',
  ]);
  assert.deepEqual(await batchFileLaunch(CLI_SHIM, ['x'], CONTEXT, io), {
    file: 'C:\\other\\node.exe',
    args: [
      '--no-warnings',
      '--max-old-space-size=100',
      'C:\\project\\node_modules\\conduit-shim-bin\\bin\\args.js',
      'x',
    ],
    windowsVerbatimArguments: false,
  });
});

test('no node anywhere, or no script: the start fails and says which file is missing', async () => {
  const noNode = fakeIo({ [CLI_SHIM]: shimText('cmd-shim-8/cli.cmd') }, [CLI_SCRIPT]);
  assert.deepEqual(await batchFileLaunch(CLI_SHIM, [], CONTEXT, noNode.io), {
    problem:
      `${CLI_SHIM} is npm's shim for ${CLI_SCRIPT}, which needs node: there is no ${BIN}\\node.exe ` +
      'and node was not found in PATH=C:\\tools;C:\\other',
  });
  const noScript = fakeIo({ [CLI_SHIM]: shimText('cmd-shim-8/cli.cmd') }, [`${BIN}\\node.exe`]);
  assert.deepEqual(await batchFileLaunch(CLI_SHIM, [], CONTEXT, noScript.io), {
    problem: `${CLI_SHIM} is npm's shim for ${CLI_SCRIPT}, which does not exist: reinstall the package`,
  });
});

test('npx.cmd: node.exe beside it runs npx-cli.js, or the one under the global prefix npm prints', async () => {
  const npx = `${NODEJS}\\npx.cmd`;
  const node = `${NODEJS}\\node.exe`;
  const beside = `${NODEJS}\\node_modules\\npm\\bin\\npx-cli.js`;
  const prefix = 'C:\\Users\\ann\\AppData\\Roaming\\npm';
  const updated = `${prefix}\\node_modules\\npm\\bin\\npx-cli.js`;
  const shims = { [npx]: shimText('npm-11/npx.cmd') };

  const alone = fakeIo(shims, [node, beside], `${NODEJS}\r\n`);
  assert.deepEqual(await batchFileLaunch(npx, ['-y', 'server'], CONTEXT, alone.io), {
    file: node,
    args: [beside, '-y', 'server'],
    windowsVerbatimArguments: false,
  });
  assert.deepEqual(alone.queries, [[node, `${NODEJS}\\node_modules\\npm\\bin\\npm-prefix.js`]]);

  const upgraded = fakeIo(shims, [node, beside, updated], `${prefix}\r\n`);
  assert.deepEqual((await batchFileLaunch(npx, ['-y'], CONTEXT, upgraded.io)) as object, {
    file: node,
    args: [updated, '-y'],
    windowsVerbatimArguments: false,
  });
  // The prefix printed, npm not updated there (or the query failed: nothing printed): the one beside.
  for (const printed of [`${prefix}\r\n`, '']) {
    const { io } = fakeIo(shims, [node, beside], printed);
    assert.deepEqual(((await batchFileLaunch(npx, [], CONTEXT, io)) as { args?: readonly string[] }).args, [
      beside,
    ]);
  }
});

test('other batch files are refused unless allowBatchFiles, and then run through cmd.exe', async () => {
  const other = 'C:\\tools\\server.cmd';
  for (const text of ['@echo off\r\nnode server.js %*\r\n', shimText('cmd-shim-8/sh.cmd'), undefined]) {
    const { io } = fakeIo(text === undefined ? {} : { [other]: text }, [`C:\\tools\\node.exe`]);
    const refused = await batchFileLaunch(other, ['x'], CONTEXT, io);
    assert.equal((refused as { key?: string }).key, 'allowBatchFiles');
    assert.match(
      (refused as { problem: string }).problem,
      /is a batch file, which Windows runs through cmd\.exe/,
    );
    assert.deepEqual(await batchFileLaunch(other, ['x'], { ...CONTEXT, allowBatchFiles: true }, io), {
      file: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '"C:\\tools\\server.cmd x"'],
      windowsVerbatimArguments: true,
    });
  }
});

test('a shim whose node is itself a batch file is a batch file to refuse', async () => {
  const { io } = fakeIo({ [CLI_SHIM]: shimText('cmd-shim-8/cli.cmd') }, ['C:\\tools\\node.cmd', CLI_SCRIPT]);
  const refused = await batchFileLaunch(CLI_SHIM, [], CONTEXT, io);
  assert.equal((refused as { key?: string }).key, 'allowBatchFiles');
});

test('the default file reader: a real shim file is read, a large file is not a shim', async () => {
  const directory = temporaryDirectory();
  const file = path.join(directory, 'cli.cmd');
  const probeAll: LaunchIo['probe'] = () => 'executable';
  writeFileSync(file, shimText('cmd-shim-8/cli.cmd'));
  const { readShim, queryPrefix } = defaultLaunchIo;
  const launch = await batchFileLaunch(file, [], CONTEXT, { probe: probeAll, readShim, queryPrefix });
  assert.equal((launch as { file: string }).file, path.win32.join(path.win32.dirname(file), 'node.exe'));
  writeFileSync(file, shimText('cmd-shim-8/cli.cmd') + ' '.repeat(20_000));
  const large = await batchFileLaunch(file, [], CONTEXT, { probe: probeAll, readShim, queryPrefix });
  assert.equal((large as { key?: string }).key, 'allowBatchFiles');
});
