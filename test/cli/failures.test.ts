// Issue 20, defects 4-7: why a server failed (its stderr tail), no third start, timeouts that
// mean what they say, one exit code per outcome, and --json errors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildOnce, CLI_SERVER, run, start } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const starts = (record: string) =>
  readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"started"')).length;
const noStackTrace = (text: string) => assert.doesNotMatch(text, /^\s+at /m, `a stack trace:\n${text}`);

describe('a server that fails at start', () => {
  test('the reason is shown (its stderr tail, Secrets redacted) and it is not started a third time', async () => {
    const record = path.join(temporaryDirectory(), 'record.jsonl');
    const result = await run(
      [
        'tools',
        '--stderr',
        'discard',
        '--pass-env',
        'CONDUIT_TEST_TOKEN',
        ...CLI_SERVER('--record', record, '--fail-start', 'fatal: missing API key (tried tok-5150-abc)'),
      ],
      { env: { ...process.env, CONDUIT_TEST_TOKEN: 'tok-5150-abc' } },
    );
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /the server exited with status 1/);
    assert.match(
      result.stderr,
      /the server's stderr ended with:\n {2}\| fatal: missing API key \(tried \[Secret\]\)\n$/,
    );
    assert.doesNotMatch(result.stderr, /tok-5150/);
    noStackTrace(result.stderr);
    // Era detection may start it once more (it died on the probe), never a third time.
    assert.ok(starts(record) <= 2, `started ${starts(record)} times`);
  });

  test('with --protocol legacy it starts once; --stderr-tail 0 shows no tail', async () => {
    const record = path.join(temporaryDirectory(), 'record.jsonl');
    const result = await run([
      'tools',
      '--protocol',
      'legacy',
      '--stderr',
      'discard',
      '--stderr-tail',
      '0',
      ...CLI_SERVER('--record', record, '--fail-start', 'fatal: no config'),
    ]);
    assert.equal(result.code, 3);
    assert.equal(starts(record), 1);
    assert.doesNotMatch(result.stderr, /fatal: no config/);
  });

  test('stderr still reaches the terminal (inherit) and a --stderr file, besides the tail', async () => {
    const inherited = await run(['tools', ...CLI_SERVER('--fail-start', 'line for the terminal')]);
    assert.match(inherited.stderr, /^line for the terminal\n/m);
    assert.match(inherited.stderr, / {2}\| line for the terminal$/m);
    const log = path.join(temporaryDirectory(), 'server.log');
    const filed = await run(['tools', '--stderr', log, ...CLI_SERVER('--fail-start', 'line for the file')]);
    assert.equal(filed.code, 3);
    assert.match(readFileSync(log, 'utf8'), /^line for the file\n/);
    assert.match(filed.stderr, / {2}\| line for the file$/m);
  });

  test('--json: the error as JSON on stdout, with the close reason and its stderr tail', async () => {
    const result = await run([
      'tools',
      '--json',
      '--stderr',
      'discard',
      ...CLI_SERVER('--fail-start', 'boom'),
    ]);
    assert.equal(result.code, 3);
    const { error } = JSON.parse(result.stdout);
    assert.equal(error.exitCode, 3);
    assert.equal(typeof error.code, 'string');
    assert.match(error.message, /exited with status 1/);
    assert.equal(error.closeReason.type, 'exit_status');
    assert.equal(error.closeReason.stderrTail, 'boom\n');
  });
});

describe('timeouts', () => {
  test('--timeout against a server that never answers: exit 4 within a few hundred ms of it', async () => {
    // Timed from the moment the server is ready, so Node's start-up on a loaded machine (often
    // most of a second here) does not count against the request's timeout.
    const spawned = performance.now();
    const running = start(['call', 'wait', '--timeout', '1000', '--verbose', ...CLI_SERVER()]);
    await running.waitFor(/ready: legacy era/);
    const ready = performance.now();
    const result = await running.finished;
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      result.stderr,
      /tools\/call got no answer within 1000 ms, nor any progress: raise --timeout/,
    );
    const afterReady = spawned + result.elapsed - ready;
    assert.ok(afterReady >= 950, `gave up ${Math.round(afterReady)} ms after ready`);
    assert.ok(afterReady < 1000 + 1500, `exited ${Math.round(afterReady)} ms after ready`);
  });

  test('progress restarts --timeout; --max-time caps the request anyway', async () => {
    const spawned = performance.now();
    const running = start([
      'call',
      'wait',
      '--arg',
      'every=200',
      '--timeout',
      '700',
      '--max-time',
      '2500',
      '--verbose',
      ...CLI_SERVER(),
    ]);
    await running.waitFor(/ready: legacy era/);
    const ready = performance.now();
    const result = await running.finished;
    assert.equal(result.code, 4, result.stderr);
    assert.match(result.stderr, /--max-time, the hard cap per request, passed/);
    const afterReady = spawned + result.elapsed - ready;
    assert.ok(
      afterReady > 2400,
      `gave up ${Math.round(afterReady)} ms after ready: progress did not reset it`,
    );
    assert.ok(afterReady < 2500 + 1500, `exited ${Math.round(afterReady)} ms after ready`);
  });

  test('--connect-timeout against a program that is not an MCP server (and ignores EOF)', async () => {
    const result = await run(['tools', '--connect-timeout', '1000', '--', 'sleep', '60']);
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      result.stderr,
      /not ready within 1000 ms \(--connect-timeout\): it may not be an MCP server/,
    );
    // From the CLI's own start, under whatever load: far below the 60 s default, which is what it guards.
    assert.ok(result.elapsed < 1000 + 5000, `exited after ${Math.round(result.elapsed)} ms`);
  });

  test('--connect-timeout against a server that reads but never answers', async () => {
    const result = await run(['tools', '--connect-timeout', '800', ...CLI_SERVER('--silent')]);
    assert.equal(result.code, 4);
    assert.ok(result.elapsed < 800 + 5000, `exited after ${Math.round(result.elapsed)} ms`);
  });
});

describe('exit codes: one per outcome', () => {
  test('0 success, 1 server error or isError, 2 usage, 3 server down, 5 unsupported, 6 protocol broken', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['tools', ...CLI_SERVER()], 0, /^$/],
      [['call', 'nope', ...CLI_SERVER()], 1, /the server answered error -32602/],
      [
        ['tools', '--stderr', '/no/such/dir/x.log', ...CLI_SERVER()],
        2,
        /the directory \/no\/such\/dir does not exist/,
      ],
      [['tools', '--', 'conduit-no-such-server-4711'], 3, /was not found in PATH/],
      [
        ['tools', '--protocol', 'modern', ...CLI_SERVER()],
        5,
        /does not speak the modern era.*--protocol auto/,
      ],
      [['call', 'echo', ...CLI_SERVER('--no-tools')], 5, /inspect shows what the server offers/],
      [['tools', ...CLI_SERVER('--repeat-cursor')], 6, /repeated the cursor/],
    ];
    for (const [args, code, message] of cases) {
      const result = await run(args);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      noStackTrace(result.stderr);
    }
  });

  test('--json errors: {"error":{code,message,exitCode}} on stdout for usage and server errors', async () => {
    const usage = await run(['call', '--json', ...CLI_SERVER()]);
    assert.equal(usage.code, 2);
    assert.deepEqual(JSON.parse(usage.stdout), {
      error: {
        code: 'CONDUIT_USAGE',
        message: 'call needs a tool name: conduit-mcp call <tool> -- <server>',
        exitCode: 2,
      },
    });
    const server = await run(['call', 'nope', '--json', ...CLI_SERVER()]);
    assert.equal(server.code, 1);
    const { error } = JSON.parse(server.stdout);
    assert.equal(error.code, -32602);
    assert.match(error.message, /Unknown tool: nope\u001b\[31m/, '--json keeps the server text as it is');
  });
});

describe('usage', () => {
  test('--version, --timeout -5, a command with whitespace, a wrong --arg type', async () => {
    const version = await run(['--version']);
    assert.equal(version.code, 0);
    const { version: expected } = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8'));
    assert.equal(version.stdout, `conduit-mcp ${expected}\n`);
    const negative = await run(['tools', '--timeout', '-5', ...CLI_SERVER()]);
    assert.equal(negative.code, 2);
    assert.match(
      negative.stderr,
      /^conduit-mcp: --timeout takes a whole number of milliseconds >= 1, got "-5"\n/,
    );
    const spaced = await run(['tools', '--', '/opt/my tools/server']);
    assert.equal(spaced.code, 2);
    assert.match(
      spaced.stderr,
      /contains whitespace, which commands may not: .*run it through its interpreter/,
    );
    assert.doesNotMatch(spaced.stderr, /command: "\/opt\/my"/);
    const wrongType = await run(['call', 'echo', '--arg', 'text=a', '--arg', 'count=many', ...CLI_SERVER()]);
    assert.equal(wrongType.code, 2);
    assert.match(wrongType.stderr, /--arg count must be an integer \(as JSON\), got "many"/);
    const help = await run(['--help']);
    assert.match(
      help.stdout,
      /--timeout <ms> +per request, restarted by each progress|--timeout <ms> +per request/,
    );
    assert.match(help.stdout, /--connect-timeout <ms>/);
    assert.match(help.stdout, /--max-time <ms>/);
  });
});
