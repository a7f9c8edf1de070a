import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildOnce, demo, root, run } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const DEMO = ['--', process.execPath, demo];
const noStackTrace = (text: string) =>
  assert.doesNotMatch(text, /^\s+at /m, `a stack trace was printed:\n${text}`);

describe('against the demo server', () => {
  test('inspect prints the era, server, capabilities, instructions and every list', async () => {
    const { code, stdout, stderr } = await run(['inspect', ...DEMO]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^Server\s+conduit-demo 1\.0\.0$/m);
    assert.match(stdout, /^Era\s+modern \(protocol 2026-07-28\)$/m);
    assert.match(stdout, /^Capabilities\s+tools, resources, prompts, completions$/m);
    assert.match(stdout, /^Instructions\s+A demo server/m);
    assert.match(stdout, /^ {2}countdown\s+from\*: integer, delayMs: integer\s+Counts down/m);
    assert.match(stdout, /^ {2}demo:\/\/about\s+about\s+text\/plain$/m);
    assert.match(stdout, /^ {2}greet\s+name\*\s+Greets someone$/m);
  });

  test('inspect --json prints only JSON', async () => {
    const { code, stdout } = await run(['inspect', '--json', ...DEMO]);
    assert.equal(code, 0);
    const report = JSON.parse(stdout);
    assert.equal(report.era, 'modern');
    assert.equal(report.protocolVersion, '2026-07-28');
    assert.deepEqual(report.serverInfo, { name: 'conduit-demo', version: '1.0.0' });
    assert.deepEqual(
      report.tools.map((tool: { name: string }) => tool.name),
      ['countdown', 'add'],
    );
    assert.equal(report.resources.length, 1);
    assert.deepEqual(
      report.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate),
      ['demo://notes/{topic}'],
    );
    assert.equal(report.prompts[0].name, 'greet');
  });

  test('--protocol legacy makes the same server speak the legacy era', async () => {
    const { code, stdout } = await run(['inspect', '--json', '--protocol', 'legacy', ...DEMO]);
    assert.equal(code, 0);
    assert.equal(JSON.parse(stdout).era, 'legacy');
  });

  test('tools, resources and prompts print one list each', async () => {
    for (const [command, name] of [
      ['tools', 'countdown'],
      ['resources', 'demo://about'],
      ['prompts', 'greet'],
    ] as const) {
      const human = await run([command, ...DEMO]);
      assert.equal(human.code, 0);
      assert.match(human.stdout, new RegExp(name));
      const json = await run([command, '--json', ...DEMO]);
      assert.equal(JSON.parse(json.stdout).length, command === 'resources' ? 1 : 2);
    }
  });

  test('call types --arg values by the tool schema; structured content only under --structured', async () => {
    const { code, stdout } = await run(['call', 'add', '--arg', 'a=2', '--arg', 'b=3.5', ...DEMO]);
    assert.equal(code, 0);
    assert.equal(stdout, '5.5\n');
    const structured = await run(['call', 'add', '--arg', 'a=2', '--arg', 'b=3.5', '--structured', ...DEMO]);
    assert.equal(structured.stdout, '5.5\n{\n  "sum": 5.5\n}\n');
    const json = await run(['call', 'add', '--args', '{"a":1,"b":2}', '--json', ...DEMO]);
    assert.deepEqual(JSON.parse(json.stdout).structuredContent, { sum: 3 });
  });

  test('call with progress prints the result (the live line shows only on a terminal)', async () => {
    const { code, stdout, stderr } = await run([
      'call',
      'countdown',
      '--arg',
      'from=2',
      '--arg',
      'delayMs=10',
      ...DEMO,
    ]);
    assert.equal(code, 0);
    assert.equal(stdout, 'Lift-off after 2 steps!\n');
    assert.equal(stderr, '');
  });

  test('a tool result with isError exits 1; a server error exits 1 without a stack trace', async () => {
    // Checked locally first; --no-validate lets the server see (and refuse) the wrong argument.
    const checked = await run(['call', 'add', '--args', '{"a":"x","b":1}', ...DEMO]);
    assert.equal(checked.code, 2);
    assert.match(checked.stderr, /add: argument a must be a number, got "x"/);
    const isError = await run(['call', 'add', '--args', '{"a":"x","b":1}', '--no-validate', ...DEMO]);
    assert.equal(isError.code, 1);
    assert.equal(isError.stdout, 'a and b must be numbers\n');
    const unknown = await run(['call', 'nope', ...DEMO]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /the server answered error -32602: .*Unknown tool: nope/);
    noStackTrace(unknown.stderr);
  });

  test('read and prompt', async () => {
    const read = await run(['read', 'demo://about', ...DEMO]);
    assert.equal(read.code, 0);
    assert.equal(read.stdout, 'ConduitMCP demo server, plain Node.\n');
    const prompt = await run(['prompt', 'greet', '--arg', 'name=Ada', ...DEMO]);
    assert.equal(prompt.code, 0);
    assert.equal(prompt.stdout, 'user: Say hello to Ada.\n');
  });

  test('--verbose shows the spawn, the era and the close on stderr', async () => {
    const { code, stderr } = await run(['tools', '--verbose', ...DEMO]);
    assert.equal(code, 0);
    assert.match(stderr, /\[\d+ ms\] spawned .*node \(pid \d+\)/);
    assert.match(stderr, /ready: modern era, protocol 2026-07-28/);
    assert.match(stderr, /transport closed: closed by the client/);
  });
});

describe('usage and failures', () => {
  test('bad usage says the one thing that is wrong and how to see help, and exits 2', async () => {
    for (const args of [
      [],
      ['frobnicate', ...DEMO],
      ['call', ...DEMO],
      ['tools'],
      ['tools', '--timeout', 'soon', ...DEMO],
      ['tools', '--no-such-flag', ...DEMO],
      ['call', 'add', '--arg', 'novalue', ...DEMO],
      ['tools', 'node', 'server.js'],
    ]) {
      const { code, stdout, stderr } = await run(args);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.equal(stdout, '');
      assert.match(stderr, /^conduit-mcp: [^\n]+\nrun 'conduit-mcp --help' for usage\n$/);
      noStackTrace(stderr);
    }
  });

  test('a configuration error names the option and exits 2', async () => {
    const { code, stderr } = await run(['tools', '--cwd', '/no/such/dir', ...DEMO]);
    assert.equal(code, 2);
    assert.match(stderr, /^conduit-mcp: --cwd must be an existing directory/m);
    noStackTrace(stderr);
  });

  test('a server that cannot start exits 3', async () => {
    const { code, stderr } = await run(['tools', '--', 'conduit-no-such-server-4711']);
    assert.equal(code, 3);
    assert.match(stderr, /conduit-no-such-server-4711 was not found in PATH=/);
    noStackTrace(stderr);
  });

  test('a server that dies mid-request exits 3', async () => {
    const { code, stderr } = await run([
      'call',
      'crash',
      '--',
      process.execPath,
      fixture('mcp.mjs'),
      '--era',
      'legacy',
    ]);
    assert.equal(code, 3);
    assert.match(stderr, /connection closed \(the server exited with status 1\)/);
  });
});

describe('config files', () => {
  test('--config with two servers, --env reaching the server, an unknown name exiting 2', async () => {
    const directory = temporaryDirectory();
    const file = path.join(directory, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          demo: { command: process.execPath, args: [demo] },
          fixture: {
            command: process.execPath,
            args: [fixture('mcp.mjs'), '--era', 'legacy'],
            env: { FROM_CONFIG: 'config-value' },
          },
        },
      }),
    );
    const first = await run(['inspect', '--json', '--config', file, '--server', 'demo']);
    assert.equal(first.code, 0);
    assert.equal(JSON.parse(first.stdout).serverInfo.name, 'conduit-demo');
    const second = await run([
      'call',
      'env',
      '--arg',
      'name=FROM_CONFIG',
      '--config',
      file,
      '--server',
      'fixture',
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'config-value\n');
    const override = await run([
      'call',
      'env',
      '--arg',
      'name=EXTRA',
      '--env',
      'EXTRA=from-flag',
      '--config',
      file,
      '--server',
      'fixture',
    ]);
    assert.equal(override.stdout, 'from-flag\n');
    const missing = await run(['tools', '--config', file, '--server', 'nope']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /has no server "nope"; it has demo, fixture/);
  });
});

describe('against @modelcontextprotocol/server-everything', () => {
  test('inspect --json reaches the legacy era and lists its tools', async () => {
    const { code, stdout, stderr } = await run(
      ['inspect', '--json', '--', process.execPath, everything, 'stdio'],
      { timeoutMs: 60_000 },
    );
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.equal(report.era, 'legacy');
    assert.ok(report.tools.length > 5);
    assert.ok(report.resources.length > 0);
  });
});
