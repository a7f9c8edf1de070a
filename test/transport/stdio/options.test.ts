import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { Client } from '../../../src/client/client.js';
import { ConfigError } from '../../../src/errors.js';
import { Secret } from '../../../src/secret.js';
import { resolveStdioOptions, STDIO_DEFAULTS } from '../../../src/transport/stdio/options.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import { temporaryDirectory } from '../../helpers/fixtures.js';

// Nothing here spawns: every option is checked when the transport is constructed.

/** The options resolved as this process would (its platform and PATHEXT), or as on `platform`. */
const resolveOptions = (raw: unknown, prefix = '', platform: NodeJS.Platform = process.platform) =>
  resolveStdioOptions(raw, prefix, platform, process.env.PATHEXT);

const directory = temporaryDirectory();
const aFile = path.join(directory, 'a-file.txt');
writeFileSync(aFile, 'not a directory\n');
const missingDirectory = path.join(directory, 'does-not-exist');

interface Case {
  /** What is wrong. */
  name: string;
  options: unknown;
  key: string;
  message: string;
}

const OPTION_NAMES =
  'type, command, args, env, cwd, stderr, stderrTail, allowBatchFiles, maxMessageBytes, maxJunkLines, maxWriteQueueBytes, stdinGrace, termGrace';

const commandRequired = (got: string) =>
  `command is required: the executable to run, e.g. 'node' or '/usr/bin/python3', got ${got}`;

const cases: Case[] = [
  // command
  { name: 'command missing', options: {}, key: 'command', message: commandRequired('undefined') },
  { name: 'command empty', options: { command: '' }, key: 'command', message: commandRequired('""') },
  {
    name: 'command a number',
    options: { command: 42 },
    key: 'command',
    message: commandRequired('number 42'),
  },
  { name: 'command null', options: { command: null }, key: 'command', message: commandRequired('null') },
  {
    name: 'command an array',
    options: { command: ['node', 'server.js'] },
    key: 'command',
    message: commandRequired('an array (2 items)'),
  },
  {
    name: 'command with arguments in it',
    options: { command: 'npx -y server' },
    key: 'command',
    message:
      'command must be the executable alone, without spaces, got "npx -y server": put arguments in args ' +
      '(e.g. command: "npx", args: ["-y","server"]); no shell splits it',
  },
  {
    name: 'command with a tab',
    options: { command: 'node\tserver.js' },
    key: 'command',
    message:
      'command must be the executable alone, without spaces, got "node\\tserver.js": put arguments in args ' +
      '(e.g. command: "node", args: ["server.js"]); no shell splits it',
  },
  {
    name: 'command with a trailing newline',
    options: { command: 'node\n' },
    key: 'command',
    message:
      'command must be the executable alone, without spaces, got "node\\n": put arguments in args ' +
      '(e.g. command: "node", args: []); no shell splits it',
  },
  {
    name: 'command with NUL',
    options: { command: 'node\0evil' },
    key: 'command',
    message: 'command must not contain a NUL character',
  },
  // args
  {
    name: 'args a string',
    options: { command: 'node', args: 'server.js --port 1' },
    key: 'args',
    message: 'args must be an array of strings, got "server.js --port 1"',
  },
  {
    name: 'args null',
    options: { command: 'node', args: null },
    key: 'args',
    message: 'args must be an array of strings, got null',
  },
  {
    name: 'args an object',
    options: { command: 'node', args: { 0: 'server.js' } },
    key: 'args',
    message: 'args must be an array of strings, got an object',
  },
  {
    name: 'args with a number',
    options: { command: 'node', args: ['server.js', 8080] },
    key: 'args',
    message: 'args[1] must be a string, got number 8080',
  },
  {
    name: 'args with a nested array',
    options: { command: 'node', args: [['server.js']] },
    key: 'args',
    message: 'args[0] must be a string, got an array (1 items)',
  },
  {
    name: 'args with a Secret',
    options: { command: 'node', args: [new Secret('hunter2')] },
    key: 'args',
    message: 'args[0] must be a string, got [Secret]',
  },
  {
    name: 'args with NUL',
    options: { command: 'node', args: ['a', 'b\0c'] },
    key: 'args',
    message: 'args[1] must not contain a NUL character',
  },
  // env
  ...(
    [
      ['a string', 'A=1', '"A=1"'],
      ['null', null, 'null'],
      ['a number', 1, 'number 1'],
      ['a Map', new Map([['A', '1']]), 'an object'],
      ['a Secret', new Secret('A=hunter2'), '[Secret]'],
      ['a function', () => ({ A: '1' }), 'a function'],
    ] as const
  ).map(
    ([what, env, got]): Case => ({
      name: `env ${what}`,
      options: { command: 'node', env },
      key: 'env',
      message: `env must be an object or an array of [name, value] pairs, got ${got}`,
    }),
  ),
  {
    name: 'env pair too short',
    options: { command: 'node', env: [['A']] },
    key: 'env',
    message: 'env[0] must be a [name, value] pair, got an array (1 items)',
  },
  {
    name: 'env pair too long',
    options: {
      command: 'node',
      env: [
        ['A', '1'],
        ['B', '2', '3'],
      ],
    },
    key: 'env',
    message: 'env[1] must be a [name, value] pair, got an array (3 items)',
  },
  {
    name: 'env list of strings',
    options: { command: 'node', env: ['A=1'] },
    key: 'env',
    message: 'env[0] must be a [name, value] pair, got "A=1"',
  },
  ...(
    [
      ['empty', { '': 'x' }, '""'],
      ['with =', { 'A=B': 'x' }, '"A=B"'],
      ['with NUL', { 'A\0B': 'x' }, '"A\\u0000B"'],
      ['a number (pairs)', [[1, 'x']], 'number 1'],
      ['empty (pairs)', [['', 'x']], '""'],
      ['with = (pairs)', [['PATH=/evil', 'x']], '"PATH=/evil"'],
    ] as const
  ).map(
    ([what, env, got]): Case => ({
      name: `env name ${what}`,
      options: { command: 'node', env },
      key: 'env',
      message: `env has an invalid variable name ${got}: it must be a non-empty string without '=' or NUL`,
    }),
  ),
  ...(
    [
      ['a number', { PORT: 8080 }, 'PORT', 'number 8080'],
      ['undefined', { TOKEN: undefined }, 'TOKEN', 'undefined'],
      ['null', { TOKEN: null }, 'TOKEN', 'null'],
      ['a boolean (pairs)', [['DEBUG', true]], 'DEBUG', 'boolean true'],
      ['an object (pairs)', [['TOKEN', { value: 'x' }]], 'TOKEN', 'an object'],
      ['a function', { TOKEN: () => 'x' }, 'TOKEN', 'a function'],
    ] as const
  ).map(
    ([what, env, name, got]): Case => ({
      name: `env value ${what}`,
      options: { command: 'node', env },
      key: 'env',
      message: `env.${name} must be a string or a Secret, got ${got}`,
    }),
  ),
  {
    name: 'env value with NUL',
    options: { command: 'node', env: { A: 'x\0y' } },
    key: 'env',
    message: 'env.A must not contain a NUL character',
  },
  // cwd
  ...(
    [
      ['relative', 'servers/files', '"servers/files"'],
      ['dot', '.', '"."'],
      ['empty', '', '""'],
      ['a number', 1, 'number 1'],
      ['null', null, 'null'],
      ['a URL object', new URL('file:///tmp'), 'an object'],
    ] as const
  ).map(
    ([what, cwd, got]): Case => ({
      name: `cwd ${what}`,
      options: { command: 'node', cwd },
      key: 'cwd',
      message: `cwd must be an absolute path to an existing directory, got ${got}`,
    }),
  ),
  {
    name: 'cwd missing',
    options: { command: 'node', cwd: missingDirectory },
    key: 'cwd',
    message: `cwd must be an existing directory, but ${JSON.stringify(missingDirectory)} does not exist: create it or fix the path`,
  },
  {
    name: 'cwd a file',
    options: { command: 'node', cwd: aFile },
    key: 'cwd',
    message: `cwd must be a directory, but ${JSON.stringify(aFile)} is not one: give the directory the server runs in`,
  },
  // stderr
  ...(
    [
      ["'pipe'", 'pipe', '"pipe"'],
      ["'stdout' (merging)", 'stdout', '"stdout"'],
      ["'ignore'", 'ignore', '"ignore"'],
      ['a path string', '/tmp/server.log', '"/tmp/server.log"'],
      ['a number (fd)', 2, 'number 2'],
      ['null', null, 'null'],
      ['true', true, 'boolean true'],
      ['an array', ['/tmp/server.log'], 'an array (1 items)'],
      ['an empty object', {}, 'an object'],
      ['{ path }', { path: '/tmp/server.log' }, 'an object'],
      ['{ file } with another key', { file: '/tmp/server.log', flags: 'w' }, 'an object'],
      ['{ file: number }', { file: 2 }, 'an object'],
    ] as const
  ).map(
    ([what, stderr, got]): Case => ({
      name: `stderr ${what}`,
      options: { command: 'node', stderr },
      key: 'stderr',
      message: `stderr must be 'inherit', 'discard' or { file: '/absolute/path' }, got ${got}`,
    }),
  ),
  {
    name: 'stderr relative file',
    options: { command: 'node', stderr: { file: 'logs/server.log' } },
    key: 'stderr',
    message: 'stderr.file must be an absolute path, got "logs/server.log"',
  },
  {
    name: 'stderr a Windows file on POSIX',
    options: { command: 'node', stderr: { file: 'C:\\logs\\server.log' } },
    key: 'stderr',
    message: 'stderr.file must be an absolute path, got "C:\\\\logs\\\\server.log"',
  },
  // allowBatchFiles
  {
    name: 'allowBatchFiles a string',
    options: { command: 'node', allowBatchFiles: 'yes' },
    key: 'allowBatchFiles',
    message: 'allowBatchFiles must be true or false, got "yes"',
  },
  {
    name: 'allowBatchFiles a number',
    options: { command: 'node', allowBatchFiles: 1 },
    key: 'allowBatchFiles',
    message: 'allowBatchFiles must be true or false, got number 1',
  },
  {
    name: 'allowBatchFiles null',
    options: { command: 'node', allowBatchFiles: null },
    key: 'allowBatchFiles',
    message: 'allowBatchFiles must be true or false, got null',
  },
  // numeric options
  ...(
    [
      ['maxMessageBytes', 'an integer >= 1 (bytes)'],
      ['maxJunkLines', 'a non-negative integer (lines)'],
      ['maxWriteQueueBytes', 'an integer >= 1 (bytes)'],
      ['stdinGrace', "a whole number of milliseconds from 0 to 2147483647 (a Node timer's limit)"],
      ['termGrace', "a whole number of milliseconds from 0 to 2147483647 (a Node timer's limit)"],
    ] as const
  ).flatMap(([option, expected]) =>
    (
      [
        ['negative', -1, 'number -1'],
        ['fractional', 1.5, 'number 1.5'],
        ['a string', '100', '"100"'],
        ['an empty string', '', '""'],
        ['NaN', Number.NaN, 'number NaN'],
        ['Infinity', Number.POSITIVE_INFINITY, 'number Infinity'],
        ['beyond safe integers', 2 ** 53, 'number 9007199254740992'],
        ['a bigint', 10n, 'bigint 10'],
        ['null', null, 'null'],
        ['false', false, 'boolean false'],
        ...(expected.includes('>= 1') ? ([['zero', 0, 'number 0']] as const) : []),
      ] as const
    ).map(
      ([what, value, got]): Case => ({
        name: `${option} ${what}`,
        options: { command: 'node', [option]: value },
        key: option,
        message: `${option} must be ${expected}, got ${got}`,
      }),
    ),
  ),
  // unknown option names
  {
    name: 'cd (the original name of cwd)',
    options: { command: 'node', cd: '/tmp' },
    key: 'cd',
    message: 'cd is not an option; did you mean cwd?',
  },
  {
    name: 'a misspelt option',
    options: { command: 'node', stdinGrase: 10 },
    key: 'stdinGrase',
    message: 'stdinGrase is not an option; did you mean stdinGrace?',
  },
  {
    name: 'arguments (alias of args)',
    options: { command: 'node', arguments: ['x'] },
    key: 'arguments',
    message: 'arguments is not an option; did you mean args?',
  },
  {
    name: 'environment (alias of env)',
    options: { command: 'node', environment: {} },
    key: 'environment',
    message: 'environment is not an option; did you mean env?',
  },
  {
    name: 'shell',
    options: { command: 'node', shell: true },
    key: 'shell',
    message: `shell is not an option; the options are ${OPTION_NAMES}`,
  },
  {
    name: 'timeout',
    options: { command: 'node', timeout: 1000 },
    key: 'timeout',
    message: `timeout is not an option; the options are ${OPTION_NAMES}`,
  },
  // the transport type, and the options themselves
  {
    name: 'type not stdio',
    options: { type: 'http', command: 'node' },
    key: 'type',
    message: `type must be 'stdio', got "http"`,
  },
  {
    name: 'options a string',
    options: 'node server.js',
    key: 'options',
    message: 'options must be an object, got "node server.js"',
  },
  { name: 'options null', options: null, key: 'options', message: 'options must be an object, got null' },
  {
    name: 'options an array',
    options: ['node'],
    key: 'options',
    message: 'options must be an object, got an array (1 items)',
  },
];

/** Asserts `fn` throws ConfigError with exactly this key and message. */
function assertConfigError(fn: () => unknown, key: string, message: string): ConfigError {
  let thrown: unknown;
  assert.throws(fn, (error) => {
    thrown = error;
    return true;
  });
  assert.ok(thrown instanceof ConfigError, `expected a ConfigError, got ${inspect(thrown)}`);
  assert.equal(thrown.code, 'CONDUIT_CONFIG');
  assert.equal(thrown.key, key);
  assert.equal(thrown.message, message);
  return thrown;
}

test('every invalid option throws ConfigError naming the option and the fix', async (t) => {
  for (const { name, options, key, message } of cases) {
    await t.test(name, () => {
      assertConfigError(() => resolveOptions(options), key, message);
    });
  }
});

test('new StdioTransport(...) throws the same ConfigError at construction', async (t) => {
  for (const { name, options, key, message } of cases) {
    await t.test(name, () => {
      assertConfigError(() => new StdioTransport(options as never), key, message);
    });
  }
});

test("with a key prefix (as a Client passes it) every key and message starts with 'transport.'", async (t) => {
  for (const { name, options, key } of cases) {
    await t.test(name, () => {
      for (const construct of [
        () => resolveOptions(options, 'transport'),
        () => new StdioTransport(options as never, { keyPrefix: 'transport' }),
      ]) {
        let thrown: unknown;
        assert.throws(construct, (error) => {
          thrown = error;
          return true;
        });
        assert.ok(thrown instanceof ConfigError, `expected a ConfigError, got ${inspect(thrown)}`);
        const prefixedKey = key === 'options' ? 'transport' : `transport.${key}`;
        assert.equal(thrown.key, prefixedKey);
        assert.ok(
          thrown.message.startsWith(prefixedKey),
          `${JSON.stringify(thrown.message)} should start with ${prefixedKey}`,
        );
      }
    });
  }
});

test('prefixed messages name the prefixed key everywhere, suggestions included', () => {
  assertConfigError(
    () => resolveOptions({ command: 'node', cd: '/tmp' }, 'transport'),
    'transport.cd',
    'transport.cd is not an option; did you mean transport.cwd?',
  );
  assertConfigError(
    () => resolveOptions({ command: 'node', cwd: 'relative' }, 'transport'),
    'transport.cwd',
    'transport.cwd must be an absolute path to an existing directory, got "relative"',
  );
  assertConfigError(
    () => resolveOptions({ command: 'npx -y server' }, 'transport'),
    'transport.command',
    'transport.command must be the executable alone, without spaces, got "npx -y server": put arguments ' +
      'in args (e.g. command: "npx", args: ["-y","server"]); no shell splits it',
  );
  assertConfigError(
    () => resolveOptions({ command: 'node', env: { TOKEN: 1 } }, 'servers.files.transport'),
    'servers.files.transport.env',
    'servers.files.transport.env.TOKEN must be a string or a Secret, got number 1',
  );
  assertConfigError(
    () => resolveOptions('node', 'transport'),
    'transport',
    'transport must be an object, got "node"',
  );
});

test('a Client holding the transport options throws the same errors, keyed transport.*, at construction', () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [
      { command: 'npx -y server' },
      'transport.command',
      'transport.command must be the executable alone, without spaces, got "npx -y server": put arguments ' +
        'in args (e.g. command: "npx", args: ["-y","server"]); no shell splits it',
    ],
    [
      { command: 'node', cd: '/tmp' },
      'transport.cd',
      'transport.cd is not an option; did you mean transport.cwd?',
    ],
    [
      { command: 'node', stderr: { file: 'server.log' } },
      'transport.stderr',
      'transport.stderr.file must be an absolute path, got "server.log"',
    ],
    [
      { command: 'node', maxJunkLines: -1 },
      'transport.maxJunkLines',
      'transport.maxJunkLines must be a non-negative integer (lines), got number -1',
    ],
  ];
  for (const [transport, key, message] of cases) {
    assertConfigError(
      () => new Client({ name: 'files', transport: { type: 'stdio', ...transport } as never }),
      key,
      message,
    );
  }
});

test('a Secret never appears in a ConfigError, even next to an invalid name', () => {
  const secret = new Secret('hunter2-value');
  for (const options of [
    { command: 'node', env: [['BAD=NAME', secret]] },
    { command: 'node', env: secret },
    { command: 'node', args: [secret] },
    { command: 'node', env: { TOKEN: secret, 'A=B': 'x' } },
  ]) {
    let thrown: unknown;
    assert.throws(
      () => resolveOptions(options),
      (error) => {
        thrown = error;
        return error instanceof ConfigError;
      },
    );
    assert.ok(!inspect(thrown).includes('hunter2'), inspect(thrown));
    assert.ok(!String((thrown as Error).message).includes('hunter2'));
  }
});

const DEFAULTS = {
  command: 'node',
  args: [],
  env: [],
  cwd: undefined,
  stderr: { kind: 'inherit' },
  stderrTail: 0,
  allowBatchFiles: false,
  maxMessageBytes: 8388608,
  maxJunkLines: 10,
  maxWriteQueueBytes: 16777216,
  stdinGrace: 2000,
  termGrace: 2000,
};

test('every default is filled', () => {
  assert.deepEqual(resolveOptions({ command: 'node' }), DEFAULTS);
  assert.deepEqual(new StdioTransport({ command: 'node' }).options, DEFAULTS);
  assert.deepEqual(STDIO_DEFAULTS, {
    maxMessageBytes: 8 * 1024 * 1024,
    maxJunkLines: 10,
    maxWriteQueueBytes: 16 * 1024 * 1024,
    stdinGrace: 2000,
    termGrace: 2000,
    stderrTail: 0,
  });
});

test('an option given as undefined takes its default', () => {
  const options = Object.fromEntries(Object.keys(DEFAULTS).map((key) => [key, undefined]));
  assert.deepEqual(resolveOptions({ ...options, command: 'node', type: undefined }), DEFAULTS);
});

test('valid values are kept: env in order as pairs, Secrets as they are, zero where allowed', () => {
  const secret = new Secret(() => 'token');
  const resolved = resolveOptions({
    type: 'stdio',
    command: '/usr/bin/env',
    args: ['', '; echo', '$HOME', '*', ' spaced '],
    env: { B: '2', A: '1', TOKEN: secret, EMPTY: '' },
    cwd: directory,
    stderr: { file: path.join(directory, 'server.log') },
    stderrTail: 8192,
    allowBatchFiles: true,
    maxMessageBytes: 1,
    maxJunkLines: 0,
    maxWriteQueueBytes: 1,
    stdinGrace: 0,
    termGrace: 0,
  });
  assert.deepEqual(resolved, {
    command: '/usr/bin/env',
    args: ['', '; echo', '$HOME', '*', ' spaced '],
    env: [
      ['B', '2'],
      ['A', '1'],
      ['TOKEN', secret],
      ['EMPTY', ''],
    ],
    cwd: directory,
    stderr: { kind: 'file', path: path.join(directory, 'server.log') },
    stderrTail: 8192,
    allowBatchFiles: true,
    maxMessageBytes: 1,
    maxJunkLines: 0,
    maxWriteQueueBytes: 1,
    stdinGrace: 0,
    termGrace: 0,
  });
  assert.equal(resolved.env[2]?.[1], secret, 'the same Secret object, not a copy or its value');
});

test('env pairs keep duplicates in order (the later wins when spawning)', () => {
  const resolved = resolveOptions({
    command: 'node',
    env: [
      ['A', '1'],
      ['A', '2'],
    ],
  });
  assert.deepEqual(resolved.env, [
    ['A', '1'],
    ['A', '2'],
  ]);
});

test('env may be a null-prototype object', () => {
  const env = Object.assign(Object.create(null) as Record<string, string>, { A: '1' });
  assert.deepEqual(resolveOptions({ command: 'node', env }).env, [['A', '1']]);
});

test('stderr forms resolve to their kinds', () => {
  assert.deepEqual(resolveOptions({ command: 'node', stderr: 'inherit' }).stderr, { kind: 'inherit' });
  assert.deepEqual(resolveOptions({ command: 'node', stderr: 'discard' }).stderr, { kind: 'discard' });
  assert.deepEqual(resolveOptions({ command: 'node', stderr: { file: '/var/log/s.log' } }).stderr, {
    kind: 'file',
    path: '/var/log/s.log',
  });
});

test('absolute means absolute for the platform given', () => {
  assert.deepEqual(
    resolveOptions({ command: 'node', stderr: { file: 'C:\\logs\\server.log' } }, '', 'win32').stderr,
    { kind: 'file', path: 'C:\\logs\\server.log' },
  );
  assertConfigError(
    () => resolveOptions({ command: 'node', stderr: { file: 'logs\\server.log' } }, '', 'win32'),
    'stderr',
    'stderr.file must be an absolute path, got "logs\\\\server.log"',
  );
});

test('the resolved options do not change when the caller mutates what it passed', () => {
  const args = ['a'];
  const env: [string, string][] = [['A', '1']];
  const resolved = resolveOptions({ command: 'node', args, env });
  args.push('b');
  env.push(['B', '2']);
  (env[0] as [string, string])[1] = 'changed';
  assert.deepEqual(resolved.args, ['a']);
  assert.deepEqual(resolved.env, [['A', '1']]);
  assert.ok(Object.isFrozen(resolved.args));
  assert.ok(Object.isFrozen(resolved.env));
});

test('construction neither looks the executable up nor starts anything', async () => {
  const transport = new StdioTransport({ command: 'conduit-no-such-executable-anywhere' });
  assert.equal(transport.pid, undefined);
  assert.equal(transport.closeReason, undefined);
  await transport.close();
  assert.deepEqual(await transport.exited, { code: null, signal: null });
});

test('a command that is a file whose path has a space is not split into a wrong command', () => {
  const spaced = path.join(directory, 'my tools');
  mkdirSync(spaced, { recursive: true });
  const file = path.join(spaced, 'server.js');
  writeFileSync(file, '');
  assert.throws(
    () => new StdioTransport({ command: file }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.key === 'command' &&
      error.message.includes('may contain whitespace only as a full path to an executable') &&
      error.message.includes(`args: [${JSON.stringify(file)}]`) &&
      !error.message.includes('put arguments in args'),
  );
});
