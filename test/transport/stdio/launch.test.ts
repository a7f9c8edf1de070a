import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { inspect, promisify } from 'node:util';
import { ConfigError } from '../../../src/errors.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { Secret } from '../../../src/secret.js';
import type { StdioOptions } from '../../../src/transport/stdio/options.js';
import { readProcStat } from '../../../src/transport/stdio/process-group.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import { fixture, nodeServer, temporaryDirectory } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';
import { failedStart, requestOver } from '../../helpers/transport.js';

guardProcesses();

const FAST = { stdinGrace: 1000, termGrace: 1000 } as const;
const directory = temporaryDirectory();
const root = path.resolve(import.meta.dirname, '../../..');

/** Runs `use` with a started transport, then closes it and waits until its process is gone. */
async function withServer<T>(
  options: StdioOptions,
  use: (transport: StdioTransport) => Promise<T>,
): Promise<T> {
  const transport = new StdioTransport({ ...FAST, ...options });
  try {
    await transport.start();
    return await use(transport);
  } finally {
    await transport.close();
    await transport.exited;
  }
}

/** The echo server's whole environment. */
async function childEnv(extra: Partial<StdioOptions> = {}): Promise<Record<string, string>> {
  return withServer(
    nodeServer('echo.mjs', [], extra),
    async (transport) => ((await requestOver(transport, 'env')) as { env: Record<string, string> }).env,
  );
}

/** Sets environment variables of this process for the length of `use`, then restores them. */
async function withParentEnv<T>(
  values: Record<string, string | undefined>,
  use: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const assign = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(values);
  try {
    return await use();
  } finally {
    assign(saved);
  }
}

/** Everything an error or a close reason could show, as text. */
function everyRendering(value: unknown): string {
  return [
    String(value),
    JSON.stringify(value) ?? '',
    inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    value instanceof Error ? `${value.message}\n${value.stack}` : '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// No shell, ever.

test('arguments reach the server literally, one argv entry each, and no shell runs them', async () => {
  const ranSemicolon = path.join(directory, 'ran-semicolon');
  const ranSubstitution = path.join(directory, 'ran-substitution');
  const ranBackticks = path.join(directory, 'ran-backticks');
  const ranPipe = path.join(directory, 'ran-pipe');
  const args = [
    `; touch ${ranSemicolon}`,
    '$HOME',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a shell would expand, on purpose
    '${PATH}',
    '*',
    '*.mjs',
    '~',
    '"quoted"',
    "'single quoted'",
    `$(touch ${ranSubstitution})`,
    `\`touch ${ranBackticks}\``,
    `| touch ${ranPipe}`,
    '&& echo',
    '> out.txt',
    'two words',
    '',
    ' ',
    'back\\slash',
    'line\nbreak',
    '%PATH%',
    'é ü 🙂',
  ];
  await withServer(
    nodeServer('echo.mjs', args, { cwd: path.dirname(fixture('echo.mjs')) }),
    async (transport) => {
      assert.deepEqual(await requestOver(transport, 'argv'), { argv: args });
      // The server is this process's own child, with exactly this command line: no sh -c in between.
      const pid = transport.pid!;
      assert.equal(readProcStat(pid)?.ppid, process.pid);
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
      assert.deepEqual(commandLine, [process.execPath, fixture('echo.mjs'), ...args]);
    },
  );
  // `; cmd` would have run after the server exited: look only now.
  for (const file of [ranSemicolon, ranSubstitution, ranBackticks, ranPipe]) {
    assert.equal(existsSync(file), false, `${file} was created: a shell ran an argument`);
  }
});

test('a shell script server receives its arguments as they are', async () => {
  const script = path.join(directory, 'args.sh');
  writeFileSync(script, `#!/bin/sh\nexec '${process.execPath}' '${fixture('echo.mjs')}' "$@"\n`);
  chmodSync(script, 0o755);
  const args = ['$HOME', '*', '; echo injected', '"a b"'];
  await withServer({ command: script, args }, async (transport) => {
    assert.deepEqual(await requestOver(transport, 'argv'), { argv: args });
  });
});

// ---------------------------------------------------------------------------------------------
// The environment.

const ALLOWLIST = {
  HOME: '/conduit/home',
  LOGNAME: 'conduit-logname',
  SHELL: '/bin/conduit-shell',
  TERM: 'xterm-conduit',
  USER: 'conduit-user',
};

test('only HOME LOGNAME PATH SHELL TERM USER are inherited, read from the child', async () => {
  await withParentEnv(
    {
      ...ALLOWLIST,
      CONDUIT_TEST_LEAK: 'x',
      NODE_OPTIONS: '--max-old-space-size=4096',
      HTTPS_PROXY: 'http://proxy.invalid:3128',
      AWS_SECRET_ACCESS_KEY: 'parent-only-secret',
      home: '/lowercase/is/another/variable',
    },
    async () => {
      const env = await childEnv();
      assert.deepEqual(env, { ...ALLOWLIST, PATH: process.env.PATH });
    },
  );
});

test('an allowlisted variable whose value starts with () is not inherited', async () => {
  await withParentEnv(
    { ...ALLOWLIST, TERM: '() { :; }; echo shellshock', SHELL: '()', USER: 'user-with-() inside' },
    async () => {
      const env = await childEnv();
      assert.deepEqual(env, {
        HOME: ALLOWLIST.HOME,
        LOGNAME: ALLOWLIST.LOGNAME,
        PATH: process.env.PATH,
        USER: 'user-with-() inside',
      });
    },
  );
});

test('env wins over inherited values, given as an object', async () => {
  await withParentEnv({ ...ALLOWLIST, CONDUIT_TEST_LEAK: 'x' }, async () => {
    const env = await childEnv({
      env: {
        HOME: '/override/home',
        NODE_OPTIONS: '--max-old-space-size=256',
        CONDUIT_TEST_LEAK: 'given',
        EMPTY: '',
      },
    });
    assert.deepEqual(env, {
      ...ALLOWLIST,
      PATH: process.env.PATH,
      HOME: '/override/home',
      NODE_OPTIONS: '--max-old-space-size=256',
      CONDUIT_TEST_LEAK: 'given',
      EMPTY: '',
    });
  });
});

test('env given as [name, value] pairs: the later of two pairs wins', async () => {
  await withParentEnv(ALLOWLIST, async () => {
    const env = await childEnv({
      env: [
        ['A', '1'],
        ['USER', 'pair-user'],
        ['A', '2'],
      ],
    });
    assert.deepEqual(env, { ...ALLOWLIST, PATH: process.env.PATH, USER: 'pair-user', A: '2' });
  });
});

test('a Secret value reaches the child', async () => {
  const env = await childEnv({ env: { API_TOKEN: new Secret('s3cr3t-token-value') } });
  assert.equal(env.API_TOKEN, 's3cr3t-token-value');
});

test('a function Secret is called at each spawn, not before: two transports get two values', async () => {
  let calls = 0;
  const options = nodeServer('echo.mjs', [], {
    env: [
      ['TOKEN', new Secret(() => `rotated-${++calls}`)],
      ['ASYNC_TOKEN', new Secret(async () => `async-${calls}`)],
    ],
  });
  const first = new StdioTransport({ ...FAST, ...options });
  const second = new StdioTransport({ ...FAST, ...options });
  assert.equal(calls, 0, 'not called at construction');
  const envs: Record<string, string>[] = [];
  for (const transport of [first, second]) {
    try {
      await transport.start();
      envs.push(((await requestOver(transport, 'env')) as { env: Record<string, string> }).env);
    } finally {
      await transport.close();
      await transport.exited;
    }
  }
  assert.equal(calls, 2);
  assert.equal(envs[0]?.TOKEN, 'rotated-1');
  assert.equal(envs[0]?.ASYNC_TOKEN, 'async-1');
  assert.equal(envs[1]?.TOKEN, 'rotated-2');
  assert.equal(envs[1]?.ASYNC_TOKEN, 'async-2');
});

test('a Secret appears in no event, telemetry payload or inspect output of a running transport', async () => {
  const value = 'running-secret-value';
  const seen: string[] = [];
  const names = ['spawn', 'exit', 'close', 'junk', 'signal'].map((name) => `conduit-mcp:transport:${name}`);
  const record = (message: unknown, name: string | symbol) =>
    seen.push(`${String(name)} ${everyRendering(message)}`);
  for (const name of names) dc.subscribe(name, record);
  try {
    const transport = new StdioTransport({
      ...nodeServer('echo.mjs', [], { env: { TOKEN: new Secret(value) } }),
      ...FAST,
    });
    transport.on('close', (reason) => seen.push(everyRendering(reason)));
    transport.on('message', (message) => seen.push(everyRendering(message)));
    await transport.start();
    await requestOver(transport, 'pid');
    seen.push(everyRendering(transport), everyRendering(transport.options));
    await transport.close();
    await transport.exited;
  } finally {
    for (const name of names) dc.unsubscribe(name, record);
  }
  assert.ok(
    seen.some((text) => text.startsWith('conduit-mcp:transport:spawn')),
    'telemetry was recorded',
  );
  for (const text of seen) assert.ok(!text.includes(value), text);
});

test('when spawn fails, the Secret is in neither the error nor the close reason', async () => {
  const value = 'spawn-failure-secret';
  const { error, reason } = await failedStart({
    command: 'conduit-no-such-server',
    env: { TOKEN: new Secret(value), OTHER: new Secret(() => value) },
  });
  assert.equal(error.message, `conduit-no-such-server was not found in PATH=${process.env.PATH}`);
  for (const rendering of [everyRendering(error), everyRendering(reason)]) {
    assert.ok(!rendering.includes(value), rendering);
  }
});

test('a Secret PATH is not shown by the errors that name the PATH searched or the file found', async () => {
  const secretDirectory = path.join(directory, 'secret-path-directory');
  mkdirSync(secretDirectory);
  const missing = await failedStart({
    command: 'conduit-no-such-server',
    env: { PATH: new Secret(secretDirectory) },
  });
  assert.equal(missing.error.message, 'conduit-no-such-server was not found in PATH=[Secret]');
  const plain = path.join(secretDirectory, 'conduit-plain');
  writeFileSync(plain, '#!/bin/sh\n');
  chmodSync(plain, 0o644);
  const notExecutable = await failedStart({
    command: 'conduit-plain',
    env: { PATH: new Secret(secretDirectory) },
  });
  assert.equal(
    notExecutable.error.message,
    '[Secret]/conduit-plain is not executable (EACCES): check its permissions (chmod +x) or run it through its interpreter',
  );
  const broken = path.join(secretDirectory, 'conduit-broken');
  writeFileSync(broken, '#!/conduit/no/such/interpreter\n');
  chmodSync(broken, 0o755);
  const notStarted = await failedStart({
    command: 'conduit-broken',
    env: { PATH: new Secret(secretDirectory) },
  });
  assert.match(notStarted.error.message, /^\[Secret\]\/conduit-broken could not be started: /);
  for (const { error, reason } of [missing, notExecutable, notStarted]) {
    for (const rendering of [everyRendering(error), everyRendering(reason)]) {
      assert.ok(!rendering.includes(secretDirectory), rendering);
    }
  }
});

test('a Secret function that returns NUL fails the start without showing the value', async () => {
  const { error } = await failedStart({
    ...nodeServer('echo.mjs'),
    env: { TOKEN: new Secret(() => 'nul-secret\0value') },
  });
  assert.equal(
    error.message,
    'the environment could not be built: the value of TOKEN contains a NUL character',
  );
  assert.ok(!everyRendering(error).includes('nul-secret'));
});

test('a Secret function that throws fails the start as a ConfigError naming the variable, its error as the cause', async () => {
  const failure = new Error('the token service is down');
  const transport = new StdioTransport(
    {
      ...FAST,
      ...nodeServer('echo.mjs'),
      env: {
        TOKEN: new Secret(() => {
          throw failure;
        }),
      },
    },
    { name: 'tokens', keyPrefix: 'transport' },
  );
  const error = await transport.start().then(
    () => assert.fail('start() resolved'),
    (rejection: unknown) => rejection,
  );
  assert.ok(error instanceof ConfigError, String(error));
  assert.equal(error.key, 'transport.env.TOKEN');
  assert.equal(error.server, 'tokens');
  assert.equal(
    error.message,
    "tokens: the Secret given as transport.env.TOKEN could not be read (the token service is down); nothing was sent to the server: fix the Secret's function",
  );
  assert.equal(error.cause, failure);
  assert.equal(transport.pid, undefined, 'no process was started');
});

// ---------------------------------------------------------------------------------------------
// cwd.

test('cwd is the server working directory', async () => {
  const cwd = path.join(directory, 'server-cwd');
  mkdirSync(cwd);
  await withServer(nodeServer('echo.mjs', [], { cwd }), async (transport) => {
    assert.deepEqual(await requestOver(transport, 'cwd'), { cwd: realpathSync(cwd) });
  });
});

test('without cwd the server runs in this process working directory, read at start', async () => {
  await withServer(nodeServer('echo.mjs'), async (transport) => {
    assert.deepEqual(await requestOver(transport, 'cwd'), { cwd: process.cwd() });
  });
  const elsewhere = path.join(directory, 'chdir-target');
  mkdirSync(elsewhere);
  const before = process.cwd();
  const transport = new StdioTransport({ ...FAST, ...nodeServer('echo.mjs') });
  process.chdir(elsewhere);
  try {
    await transport.start();
    assert.deepEqual(await requestOver(transport, 'cwd'), { cwd: realpathSync(elsewhere) });
  } finally {
    process.chdir(before);
    await transport.close();
    await transport.exited;
  }
});

test('a cwd removed after construction fails the start and says so', async () => {
  const cwd = path.join(directory, 'removed-cwd');
  mkdirSync(cwd);
  const transport = new StdioTransport({ ...FAST, ...nodeServer('echo.mjs', [], { cwd }) });
  rmSync(cwd, { recursive: true });
  await assert.rejects(transport.start(), {
    name: 'SpawnError',
    message: `the working directory ${cwd} does not exist any more`,
  });
  assert.equal(transport.closeReason?.type, 'spawn_failed');
  await transport.exited;
});

// ---------------------------------------------------------------------------------------------
// stderr.

/** Runs the stderr fixture until it says it is ready; returns every message it sent on stdout. */
async function runStderrServer(text: string, stderr: StdioOptions['stderr']): Promise<JsonRpcMessage[]> {
  const transport = new StdioTransport({ ...FAST, ...nodeServer('stderr.mjs', [text], { stderr }) });
  const messages: JsonRpcMessage[] = [];
  transport.on('message', (message) => messages.push(message));
  try {
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the stderr server never said ready')), 15_000);
      transport.on('message', (message) => {
        if ('method' in message && message.method === 'notifications/ready') {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await transport.start();
    await ready;
  } finally {
    await transport.close();
    await transport.exited;
  }
  return messages;
}

const FROM_STDERR = '{"jsonrpc":"2.0","method":"notifications/from-stderr"}';

function onlyReady(messages: JsonRpcMessage[]): void {
  assert.deepEqual(
    messages.map((message) => ('method' in message ? message.method : message)),
    ['notifications/ready'],
    'the JSON-RPC line written on stderr must not arrive as a message',
  );
}

test('stderr { file } is appended to, never truncated, and stays out of the messages', async () => {
  const file = path.join(directory, 'server-stderr.log');
  writeFileSync(file, 'old content from an earlier run\n');
  onlyReady(await runStderrServer('first run', { file }));
  onlyReady(await runStderrServer('second run', { file }));
  assert.equal(
    readFileSync(file, 'utf8'),
    `old content from an earlier run\nfirst run\n${FROM_STDERR}\nsecond run\n${FROM_STDERR}\n`,
  );
});

test('stderr { file } is created if missing', async () => {
  const file = path.join(directory, 'created-stderr.log');
  assert.equal(existsSync(file), false);
  onlyReady(await runStderrServer('created', { file }));
  assert.equal(readFileSync(file, 'utf8'), `created\n${FROM_STDERR}\n`);
});

test('stderr { file } in a missing directory fails the start and names the file', async () => {
  const file = path.join(directory, 'no-such-directory', 'stderr.log');
  const { error } = await failedStart({ ...nodeServer('echo.mjs'), stderr: { file } });
  assert.match(error.message, new RegExp(`^the stderr file ${file} cannot be opened: ENOENT`));
});

test("stderr 'discard' sends it to /dev/null and stays out of the messages", async () => {
  onlyReady(await runStderrServer('discarded', 'discard'));
  await withServer(nodeServer('echo.mjs', [], { stderr: 'discard' }), async (transport) => {
    await requestOver(transport, 'pid');
    assert.equal(readlinkSync(`/proc/${transport.pid}/fd/2`), '/dev/null');
  });
});

test("stderr 'inherit' (the default) hands the server this process's stderr, apart from its stdout", async () => {
  for (const stderr of [undefined, 'inherit'] as const) {
    await withServer(nodeServer('echo.mjs', [], stderr ? { stderr } : {}), async (transport) => {
      await requestOver(transport, 'pid');
      const childStderr = readlinkSync(`/proc/${transport.pid}/fd/2`);
      assert.equal(childStderr, readlinkSync('/proc/self/fd/2'));
      assert.notEqual(
        readlinkSync(`/proc/${transport.pid}/fd/1`),
        childStderr,
        'stdout is a pipe of its own',
      );
    });
  }
});

const run = promisify(execFile);
let hostCount = 0;

/** Runs a small host program, in its own Node process, that uses the transport; returns its output. */
async function runHost(body: string, env: Record<string, string> = {}) {
  const host = path.join(directory, `host-${++hostCount}.mts`);
  const source = pathToFileURL(path.join(root, 'src/index.ts')).href;
  writeFileSync(host, `import { Secret, StdioTransport } from ${JSON.stringify(source)};\n${body}\n`);
  return run(process.execPath, ['--import', 'tsx', host], {
    cwd: root,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
}

const HOST_BODY = (stderrScript: string, text: string, extra: string) => `
const transport = new StdioTransport({
  command: process.execPath,
  args: [${JSON.stringify(stderrScript)}, ${JSON.stringify(text)}],
  stdinGrace: 1000,
  termGrace: 1000,
  ${extra}
});
const messages = [];
const ready = new Promise((resolve) => transport.on('message', (message) => {
  messages.push(message);
  if (message.method === 'notifications/ready') resolve();
}));
await transport.start();
await ready;
await transport.close();
await transport.exited;
process.stdout.write(JSON.stringify(messages.map((message) => message.method)));
`;

test("stderr 'inherit': the server's stderr reaches this process's stderr, never its messages", async () => {
  const { stdout, stderr } = await runHost(HOST_BODY(fixture('stderr.mjs'), 'inherited line', ''));
  assert.deepEqual(JSON.parse(stdout), ['notifications/ready']);
  assert.ok(stderr.includes(`inherited line\n${FROM_STDERR}\n`), stderr);
});

test('NODE_DEBUG=conduit-mcp logs the launch but never a Secret', async () => {
  const value = 'debug-log-secret-value';
  const { stdout, stderr } = await runHost(
    HOST_BODY(
      fixture('stderr.mjs'),
      'debug run',
      `env: { TOKEN: new Secret(${JSON.stringify(value)}), OTHER: new Secret(() => ${JSON.stringify(value)}) },`,
    ),
    { NODE_DEBUG: 'conduit-mcp' },
  );
  assert.deepEqual(JSON.parse(stdout), ['notifications/ready']);
  assert.match(stderr, /CONDUIT-MCP \d+: stdio: spawned /);
  assert.ok(!stderr.includes(value), stderr);
});
