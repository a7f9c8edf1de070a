// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${VAR} literally
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'dist/cli/main.js');

before(() => {
  if (!existsSync(bin)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conduit-mcp ${args.join(' ')} did not finish; stderr: ${stderr}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function config(servers: Record<string, unknown>): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

const named = (tools: string[]) => ({
  command: process.execPath,
  args: [fixture('named-tools.mjs'), JSON.stringify(tools)],
});

test('servers --config: the status table of every server, started in parallel; exit 3 when one is down', async () => {
  const file = config({
    alpha: named(['echo', 'read.file']),
    beta: { ...named(['echo']), autoApprove: [] },
    broken: { command: process.execPath, args: [fixture('mcp.mjs'), '--exit-at-start', '4'] },
    off: { command: 'never-run', disabled: true },
  });
  const { code, stdout, stderr } = await run(['servers', '--config', file]);
  assert.equal(code, 3);
  assert.match(stdout, /^ {2}SERVER\s+STATE\s+ERA\s+TOOLS\s+ERROR$/m);
  assert.match(stdout, /^ {2}alpha\s+ready\s+legacy\s+2$/m);
  assert.match(stdout, /^ {2}beta\s+ready\s+legacy\s+1$/m);
  assert.match(stdout, /^ {2}broken\s+failed\s+-\s+-\s+initialize failed: .*exited with status 4\)$/m);
  assert.match(stdout, /^ {2}off\s+disabled\s+-\s+-$/m);
  assert.match(
    stderr,
    /warning: .*mcpServers\.beta\.autoApprove is not a setting conduit-mcp uses \(ignored\)/,
  );
  const json = await run(['servers', '--json', '--config', config({ alpha: named(['echo']) })]);
  assert.equal(json.code, 0, json.stderr);
  const [alpha] = JSON.parse(json.stdout);
  assert.equal(alpha.state, 'ready');
  assert.equal(alpha.toolCount, 1);
});

test('tools --config without --server lists every server tools under pool names', async () => {
  const file = config({ alpha: named(['echo', 'read.file']), beta: named(['echo']) });
  const { code, stdout, stderr } = await run(['tools', '--json', '--config', file]);
  assert.equal(code, 0, stderr);
  const tools = JSON.parse(stdout) as Array<{ name: string; server: string; originalName: string }>;
  assert.deepEqual(
    tools.map((tool) => [tool.name, tool.server, tool.originalName]),
    [
      ['alpha__echo', 'alpha', 'echo'],
      ['alpha__read_file', 'alpha', 'read.file'],
      ['beta__echo', 'beta', 'echo'],
    ],
  );
  const human = await run(['tools', '--config', file]);
  assert.match(human.stdout, /^ {2}alpha__read_file$/m);
});

test('config errors from the shared loader name the file, server and key, and exit 2', async () => {
  const file = config({ s: { command: process.execPath, args: ['${CONDUIT_UNSET_FOR_TEST}'] } });
  const { code, stderr } = await run(['tools', '--config', file, '--server', 's']);
  assert.equal(code, 2);
  assert.match(
    stderr,
    /mcp\.json: mcpServers\.s\.args\[0\]: the environment variable CONDUIT_UNSET_FOR_TEST is not set/,
  );
  const usage = await run(['servers']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /servers takes --config <file>/);
});
