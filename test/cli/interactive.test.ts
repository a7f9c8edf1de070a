// Issue 20, what people expect of a terminal client: the server's requests answered at the
// terminal (elicitation on a TTY, roots, sampling refused), complete, --log-level, watch,
// --trace and shell. TTY-only behaviour runs under a real pseudo-terminal (script -qfec).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildOnce, CLI_SERVER, demo, root, run, start, startInTerminal } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

describe("the server's requests", () => {
  test('elicitation: a form on the terminal, typed by its schema, sent on confirmation', async () => {
    const terminal = startInTerminal(['call', 'ask', ...CLI_SERVER()]);
    await terminal.waitFor(/server asks: Who are you\?/);
    await terminal.waitFor(/name\* - Your name: $/);
    terminal.type('\r');
    await terminal.waitFor(/\(required\)/);
    terminal.type('Ada\r');
    await terminal.waitFor(/age: $/);
    terminal.type('old\r');
    await terminal.waitFor(/\(a number, please\)/);
    terminal.type('36\r');
    await terminal.waitFor(/admin \(y\/n\): $/);
    terminal.type('y\r');
    await terminal.waitFor(/color \(1=red, 2=green\): $/);
    terminal.type('2\r');
    await terminal.waitFor(/Send\? \[Y\/n, c to cancel\] $/);
    terminal.type('\r');
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    const answer = JSON.parse(/\{"action".*\}/.exec(screen)![0]);
    assert.deepEqual(answer, {
      action: 'accept',
      content: { name: 'Ada', age: 36, admin: true, color: 'green' },
    });
  });

  test('elicitation: Ctrl-C at a question cancels the form, not the command', async () => {
    const terminal = startInTerminal(['call', 'ask', ...CLI_SERVER()]);
    await terminal.waitFor(/name\* - Your name: $/);
    terminal.type('\u0003');
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    assert.match(screen, /\{"action":"cancel"\}/);
  });

  test('elicitation with stdin not a terminal: declined, with a note on stderr', async () => {
    const result = await run(['call', 'ask', ...CLI_SERVER()]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '{"action":"decline"}\n');
    assert.match(result.stderr, /asked for input, but stdin is not a terminal: declined/);
  });

  test('--root offers directories as file:// roots; sampling is refused with a clear error', async () => {
    const directory = temporaryDirectory();
    const roots = await run(['call', 'roots', '--root', directory, '--root', '.', ...CLI_SERVER()]);
    assert.equal(roots.code, 0, roots.stderr);
    assert.deepEqual(JSON.parse(roots.stdout), {
      roots: [
        { uri: `file://${directory}`, name: path.basename(directory) },
        { uri: `file://${root}`, name: path.basename(root) },
      ],
    });
    const missing = await run(['call', 'roots', '--root', '/no/such/root', ...CLI_SERVER()]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--root \/no\/such\/root: \/no\/such\/root is not an existing directory/);
    const sampling = await run(['call', 'sample', ...CLI_SERVER()]);
    assert.deepEqual(JSON.parse(sampling.stdout), {
      error: { code: -32601, message: 'sampling/createMessage is not supported by this client' },
    });
  });
});

describe('progress on a terminal', () => {
  test('a live line on stderr, cleared before the result', async () => {
    const terminal = startInTerminal([
      'call',
      'countdown',
      '--arg',
      'from=3',
      '--arg',
      'delayMs=100',
      '--',
      process.execPath,
      demo,
    ]);
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    assert.match(screen, /\r\u001b\[2K1\/3/);
    assert.match(screen, /\r\u001b\[2KLift-off after 3 steps!/);
  });
});

describe('complete, --log-level, --trace', () => {
  test('complete prompt:<name> <argument> <value>', async () => {
    const human = await run(['complete', 'prompt:greet', 'who', 'b', ...CLI_SERVER()]);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, 'beta\n');
    const json = await run(['complete', 'prompt:greet', 'who', '', '--json', ...CLI_SERVER()]);
    assert.deepEqual(JSON.parse(json.stdout).values, ['alpha', 'beta', 'gamma']);
    const bad = await run(['complete', 'greet', 'who', 'b', ...CLI_SERVER()]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /takes prompt:<name> or resource:<uri template>/);
  });

  test('--log-level sets the level on the server and shows its log messages on stderr', async () => {
    const result = await run(['call', 'log', '--log-level', 'warning', ...CLI_SERVER()]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'level warning\n');
    assert.match(result.stderr, /^\[warning fx\] at warning/m);
    assert.match(result.stderr, /^\[error fx\] at error/m);
    const bad = await run(['tools', '--log-level', 'loud', ...CLI_SERVER()]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--log-level takes one of debug, info/);
  });

  test('--trace: every message both ways, Secrets redacted, to a file', async () => {
    const file = path.join(temporaryDirectory(), 'trace.log');
    const secret = 'tok-trace-8080';
    const result = await run(
      [
        'call',
        'echo',
        '--arg',
        `text=${secret}`,
        '--pass-env',
        'CONDUIT_T',
        '--trace',
        file,
        ...CLI_SERVER(),
      ],
      { env: { ...process.env, CONDUIT_T: secret } },
    );
    assert.equal(result.code, 0, result.stderr);
    const trace = readFileSync(file, 'utf8');
    assert.match(trace, /^\[\d+ ms\] → \{"jsonrpc":"2\.0","id":\d+,"method":"initialize"/m);
    assert.match(trace, /^\[\d+ ms\] ← \{"jsonrpc":"2\.0","id":\d+,"result":\{"protocolVersion"/m);
    assert.match(trace, /→ .*"method":"tools\/call".*"text":"\[Secret\]"/);
    assert.doesNotMatch(trace, /tok-trace/);
  });
});

describe('watch', () => {
  test('prints list-changed and resource-updated notifications as they arrive, until Ctrl-C', async () => {
    const watch = start(['watch', 'fx://evil', ...CLI_SERVER('--notify-every', '150')]);
    await watch.waitFor(/resources\/updated fx:\/\/evil\n/);
    await watch.waitFor(/tools\/list_changed\n/);
    watch.child.kill('SIGINT');
    const result = await watch.finished;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stdout, /^\d{4}-\d\d-\d\dT[\d:.]+Z tools\/list_changed$/m);
  });

  test('ends with exit 3 when the server goes away', async () => {
    const watch = await run(['watch', '--', process.execPath, '-e', EXITING_SERVER]);
    assert.equal(watch.code, 3, watch.stderr);
    assert.match(watch.stderr, /connection closed \(the server exited with status 7\)/);
  });
});

describe('shell', () => {
  test('piped: many commands against one server started once; an error does not end it', async () => {
    const record = path.join(temporaryDirectory(), 'record.jsonl');
    const result = await run(['shell', ...CLI_SERVER('--record', record)], {
      input: 'tools\ncall echo text="two words" count=2\ncall nope\nread fx://evil\nexit\n',
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^ {2}echo +text\*: string/m);
    assert.match(result.stdout, /^\{"text":"two words","count":2\}$/m);
    assert.match(result.stdout, /^red \\x1b\[31mRED/m);
    assert.match(result.stderr, /Unknown tool: nope/);
    const starts = readFileSync(record, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"started"'));
    assert.equal(starts.length, 1);
  });

  test('read with --output saves a blob, as the read command does', async () => {
    const directory = path.join(temporaryDirectory(), 'out');
    const result = await run(['shell', '--output', directory, ...CLI_SERVER()], {
      input: 'read fx://blob\nexit\n',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(readdirSync(directory), ['1-blob.bin']);
    assert.deepEqual([...readFileSync(path.join(directory, '1-blob.bin'))], [0, 1, 2, 3]);
    assert.match(result.stdout, /saved to .*1-blob\.bin/);
  });

  test('on a terminal: tab completes tool names, arrow keys recall history, kept in a file', async () => {
    const history = path.join(temporaryDirectory(), 'history');
    const terminal = startInTerminal(['shell', ...CLI_SERVER()], {
      env: { ...process.env, CONDUIT_MCP_HISTORY: history },
    });
    await terminal.waitFor(/cli-fixture> /);
    terminal.type('call ec\t');
    await terminal.waitFor(/call echo /);
    terminal.type('text=hi\r');
    await terminal.waitFor(/\{"text":"hi"\}/);
    terminal.type('tools\r');
    await terminal.waitFor(/Echoes its arguments/);
    terminal.type('\u001b[A\u001b[A\r');
    await terminal.waitFor(/\{"text":"hi"\}[\s\S]*\{"text":"hi"\}/);
    terminal.type('exit\r');
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    assert.equal(readFileSync(history, 'utf8'), 'call echo text=hi\ntools\ncall echo text=hi\nexit\n');
  });

  test("on a terminal: a server's form is asked on the shell's own line editor, then the shell goes on", async () => {
    const history = path.join(temporaryDirectory(), 'history');
    const terminal = startInTerminal(['shell', ...CLI_SERVER()], {
      env: { ...process.env, CONDUIT_MCP_HISTORY: history },
    });
    await terminal.waitFor(/cli-fixture> /);
    terminal.type('call ask\r');
    await terminal.waitFor(/server asks: Who are you\?[\s\S]*name\* - Your name: $/);
    terminal.type('Ada\r');
    await terminal.waitFor(/age: $/);
    terminal.type('\r');
    await terminal.waitFor(/admin \(y\/n\): $/);
    terminal.type('n\r');
    await terminal.waitFor(/color \(1=red, 2=green\): $/);
    terminal.type('1\r');
    await terminal.waitFor(/Send\? \[Y\/n, c to cancel\] $/);
    terminal.type('\r');
    await terminal.waitFor(/\{"action":"accept","content":\{"name":"Ada","admin":false,"color":"red"\}\}/);
    await terminal.waitFor(/cli-fixture> $/);
    terminal.type('call echo text=after\r');
    await terminal.waitFor(/\{"text":"after"\}[\s\S]*cli-fixture> $/);
    // The form's answers are not shell history: two steps back is `call ask`, run again, and
    // Ctrl-C at its first question cancels the form, not the shell.
    terminal.type('\u001b[A\u001b[A\r');
    await terminal.waitFor(/Who are you\?[\s\S]*Who are you\?[\s\S]*name\* - Your name: $/);
    terminal.type('\u0003');
    await terminal.waitFor(/\{"action":"cancel"\}[\s\S]*cli-fixture> $/);
    terminal.type('exit\r');
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    assert.doesNotMatch(screen, /unknown command/, 'no answer reached the shell as a command');
    assert.equal(readFileSync(history, 'utf8'), 'call ask\ncall echo text=after\ncall ask\nexit\n');
  });

  test('piped: a form is declined, saying stdin is not a terminal, and the next command runs', async () => {
    const result = await run(['shell', ...CLI_SERVER()], { input: 'call ask\ncall echo text=next\n' });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^\{"action":"decline"\}$/m);
    assert.match(result.stdout, /^\{"text":"next"\}$/m);
    assert.match(result.stderr, /server asked for input, but stdin is not a terminal: declined/);
  });
});

/** Answers initialize, then exits with status 7 a moment later. */
const EXITING_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'x', version: '1' } } });
    setTimeout(() => process.exit(7), 300);
  } else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});`;

describe('input variables of a config file (VS Code inputs)', () => {
  const uses = (id: string) => `\${input:${id}}`;
  function writeInputsConfig(): string {
    const file = path.join(temporaryDirectory(), 'mcp.json');
    const config = {
      inputs: [
        { id: 'label', type: 'promptString', description: 'A label' },
        { id: 'token', type: 'promptString', description: 'The token', password: true },
        { id: 'flavour', type: 'pickString', description: 'A flavour', options: ['plain', 'spicy'] },
      ],
      servers: {
        asked: {
          type: 'stdio',
          command: process.execPath,
          args: [fixture('named-tools.mjs'), JSON.stringify([uses('label'), uses('flavour')])],
          env: { TOKEN: uses('token') },
        },
      },
    };
    writeFileSync(file, JSON.stringify(config));
    return file;
  }

  test('on a terminal: asked once each, a password not echoed, a pick by number', async () => {
    const file = writeInputsConfig();
    const terminal = startInTerminal(['tools', '--config', file, '--server', 'asked']);
    await terminal.waitFor(/asked: A label: $/);
    terminal.type('hello\r');
    await terminal.waitFor(/asked: A flavour \(1=plain, 2=spicy\): $/);
    terminal.type('2\r');
    await terminal.waitFor(/asked: The token: $/);
    terminal.type('sekrit-4711\r');
    const { code, screen } = await terminal.finished;
    assert.equal(code, 0, screen);
    assert.match(screen, /hello/);
    assert.match(screen, /spicy/);
    assert.doesNotMatch(screen, /sekrit-4711/, 'the password is not echoed or shown');
  });

  test('with stdin not a terminal: refused, naming the file, the server and what to write', async () => {
    const file = writeInputsConfig();
    const result = await run(['tools', '--config', file, '--server', 'asked']);
    assert.equal(result.code, 2, result.stderr);
    assert.ok(result.stderr.includes(file), result.stderr);
    assert.match(result.stderr, /asked uses \$\{input:\w+\}, and stdin is not a terminal/);
    assert.match(result.stderr, /write the value/);
  });
});
