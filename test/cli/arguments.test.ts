// Issue 20, defects 3 and 10: --arg typed by anyOf/oneOf/type arrays (against a real pydantic
// schema too), --args @file and -, --pass-env, and the limits as flags.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildOnce, CLI_SERVER, root, run } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { requirePython } from '../helpers/python.js';

guardProcesses();
buildOnce();

const typedServer = path.join(root, 'test/fixtures/python/typed_server.py');

describe('--arg typing by the schema', () => {
  test('FastMCP (pydantic anyOf/null): numbers, lists, booleans and null arrive typed; strings stay strings', async () => {
    const python = requirePython();
    const typed = await run(
      [
        'call',
        'describe',
        '--stderr',
        'discard',
        '--arg',
        'count=5',
        '--arg',
        'ratio=2.5',
        '--arg',
        'tags=["a","b"]',
        '--arg',
        'enabled=true',
        '--arg',
        'label=5',
        '--arg',
        'either=7',
        '--',
        python,
        typedServer,
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(typed.code, 0, typed.stderr);
    assert.deepEqual(JSON.parse(typed.stdout), {
      count: [5, 'int'],
      ratio: [2.5, 'float'],
      tags: [['a', 'b'], 'list'],
      enabled: [true, 'bool'],
      label: ['5', 'str'],
      either: [7, 'int'],
    });
    const nulls = await run(
      [
        'call',
        'describe',
        '--stderr',
        'discard',
        '--arg',
        'count=null',
        '--arg',
        'either=hello',
        '--arg',
        'label=x y',
        '--',
        python,
        typedServer,
      ],
      { timeoutMs: 60_000 },
    );
    assert.equal(nulls.code, 0, nulls.stderr);
    assert.deepEqual(JSON.parse(nulls.stdout), { label: ['x y', 'str'], either: ['hello', 'str'] });
  });

  test('oneOf, type arrays and local $refs; a value of no accepted type is refused before sending', async () => {
    const result = await run([
      'call',
      'typed',
      '--arg',
      'n=5',
      '--arg',
      'tags=["a"]',
      '--arg',
      'flag=null',
      '--arg',
      'either=1.5',
      '--arg',
      'name=null',
      '--arg',
      'point={"x":1}',
      ...CLI_SERVER(),
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      n: 5,
      tags: ['a'],
      flag: null,
      either: 1.5,
      name: 'null',
      point: { x: 1 },
    });
    for (const [arg, message] of [
      ['n=five', /--arg n must be an integer or a null \(as JSON\), got "five"/],
      ['n=1.5', /--arg n must be an integer or a null/],
      ['tags=a', /--arg tags must be an array or a null/],
      ['flag=yes', /--arg flag must be a boolean or a null/],
    ] as const) {
      const refused = await run(['call', 'typed', '--arg', arg, ...CLI_SERVER()]);
      assert.equal(refused.code, 2, arg);
      assert.match(refused.stderr, message);
    }
  });
});

describe('--args from a file or stdin', () => {
  test('@file.json and - (stdin), with --arg on top; a bad file is a usage error', async () => {
    const file = path.join(temporaryDirectory(), 'args.json');
    writeFileSync(file, JSON.stringify({ text: 'from the file', count: 2 }));
    const fromFile = await run(['call', 'echo', '--args', `@${file}`, '--arg', 'count=3', ...CLI_SERVER()]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual(JSON.parse(fromFile.stdout), { text: 'from the file', count: 3 });
    const big = 'y'.repeat(300_000);
    const fromStdin = await run(['call', 'echo', '--args', '-', ...CLI_SERVER()], {
      input: JSON.stringify({ text: big }),
    });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(JSON.parse(fromStdin.stdout).text.length, big.length);
    const missing = await run(['call', 'echo', '--args', '@/no/such/args.json', ...CLI_SERVER()]);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /--args @\/no\/such\/args\.json: cannot read \/no\/such\/args\.json: ENOENT/,
    );
    const notObject = await run(['call', 'echo', '--args', '-', ...CLI_SERVER()], { input: '[1]' });
    assert.equal(notObject.code, 2);
    assert.match(notObject.stderr, /--args - \(stdin\) must be a JSON object/);
  });
});

describe('environment and limits', () => {
  test('--pass-env lets one more variable through; others stay out', async () => {
    const env = { ...process.env, CONDUIT_PASSED: 'passed-value', CONDUIT_KEPT_OUT: 'kept-out' };
    const passed = await run(
      ['call', 'env-of', '--pass-env', 'CONDUIT_PASSED', '--', process.execPath, '-e', ENV_SERVER],
      { env },
    );
    assert.equal(passed.code, 0, passed.stderr);
    assert.deepEqual(JSON.parse(passed.stdout), { CONDUIT_PASSED: 'passed-value' });
    const unset = await run(['tools', '--pass-env', 'CONDUIT_NOT_SET_ANYWHERE', ...CLI_SERVER()]);
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /--pass-env CONDUIT_NOT_SET_ANYWHERE: CONDUIT_NOT_SET_ANYWHERE is not set/);
  });

  test('--max-message-bytes, --max-junk-lines and --probe-timeout reach the client', async () => {
    const large = await run([
      'call',
      'big',
      '--arg',
      'bytes=200000',
      '--max-message-bytes',
      '100000',
      ...CLI_SERVER(),
    ]);
    assert.equal(large.code, 3);
    assert.match(large.stderr, /wrote a message larger than 100000 bytes/);
    const fits = await run([
      'call',
      'big',
      '--arg',
      'bytes=200000',
      '--max-message-bytes',
      '300000',
      ...CLI_SERVER(),
    ]);
    assert.equal(fits.code, 0);
    const junk = await run(['tools', '--max-junk-lines', '2', '--', process.execPath, '-e', JUNK_SERVER]);
    assert.equal(junk.code, 3);
    assert.match(junk.stderr, /more than 2 lines in a row that are not JSON-RPC/);
    // A server that never answers the probe: --probe-timeout decides how soon legacy is tried.
    const probe = await run([
      'tools',
      '--verbose',
      '--probe-timeout',
      '300',
      '--',
      process.execPath,
      '-e',
      SILENT_PROBE_SERVER,
    ]);
    assert.equal(probe.code, 0, probe.stderr);
    const ready = /\[(\d+) ms\] ready: legacy era/.exec(probe.stderr);
    assert.ok(ready, probe.stderr);
    assert.ok(Number(ready[1]) < 2500, `ready after ${ready[1]} ms with --probe-timeout 300`);
  });
});

/** A legacy server with one tool that returns the CONDUIT_ variables it sees. */
const ENV_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'env', version: '1' } } });
  if (m.method === 'tools/list') return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'env-of', inputSchema: { type: 'object' } }] } });
  if (m.method === 'tools/call') {
    const seen = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CONDUIT_')));
    return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(seen) }] } });
  }
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});`;

/** Prints banner lines instead of JSON-RPC. */
const JUNK_SERVER = `for (let i = 0; i < 20; i++) console.log('banner line ' + i); process.stdin.resume();`;

/** Ignores server/discover (no answer), answers initialize and tools/list. */
const SILENT_PROBE_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'p', version: '1' } } });
  if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [] } });
});`;

describe('local validation against the input schema', () => {
  test('missing, unknown and wrong arguments are named before anything is sent; --no-validate sends anyway', async () => {
    const record = path.join(temporaryDirectory(), 'record.jsonl');
    const missing = await run(['call', 'echo', '--arg', 'count=3', ...CLI_SERVER('--record', record)]);
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      'conduit-mcp: echo: missing required argument text (parameters: text*: string, count: integer; --no-validate sends them anyway)\n',
    );
    const nested = await run([
      'call',
      'typed',
      '--args',
      '{"point":{"x":"a"},"n":"q"}',
      ...CLI_SERVER('--record', record),
    ]);
    assert.equal(nested.code, 2);
    assert.match(
      nested.stderr,
      /argument n must be an integer or a null, got "q"; argument point at \/point\/x: .*Expected "number"/,
    );
    assert.doesNotMatch(readFileSync(record, 'utf8'), /tools\/call/, 'an invalid call was sent');
    const anyway = await run([
      'call',
      'echo',
      '--arg',
      'count=3',
      '--no-validate',
      ...CLI_SERVER('--record', record),
    ]);
    assert.equal(anyway.code, 0, anyway.stderr);
    assert.match(readFileSync(record, 'utf8'), /"tools\/call"/);
  });

  test('FastMCP: an argument its schema does not allow (additionalProperties: false) is named', async () => {
    const result = await run(
      ['call', 'describe', '--stderr', 'discard', '--arg', 'bogus=1', '--', requirePython(), typedServer],
      { timeoutMs: 60_000 },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^conduit-mcp: describe: unknown argument bogus \(parameters: count: integer\|null/,
    );
  });
});
