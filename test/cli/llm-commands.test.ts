// `conduit-mcp tools --format <provider>` and `conduit-mcp search <query> --config <file>`, run as
// the built command; the pools' manifests go to a temporary XDG_CONFIG_HOME.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildOnce, demo, start } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const home = temporaryDirectory();
const env = { ...process.env, XDG_CONFIG_HOME: home };
const run = (args: string[]) => start(args, { env }).finished;

const catalog = (tools: Array<{ name: string; description: string; properties?: string[] }>) => ({
  command: process.execPath,
  args: [fixture('catalog.mjs'), JSON.stringify(tools)],
});

function config(servers: Record<string, object>): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

test("tools --format prints each provider's definitions of one server or of a whole config", async () => {
  const openai = await run(['tools', '--format', 'openai', '--', process.execPath, demo]);
  assert.equal(openai.code, 0, openai.stderr);
  const chat = JSON.parse(openai.stdout);
  const add = chat.find((tool: { function: { name: string } }) => tool.function.name === 'add');
  assert.equal(add.type, 'function');
  assert.equal(add.function.strict, true);
  assert.deepEqual(add.function.parameters.required.sort(), ['a', 'b']);

  const file = config({ demo: { command: process.execPath, args: [demo] } });
  const anthropic = JSON.parse((await run(['tools', '--format', 'anthropic', '--config', file])).stdout);
  assert.ok(
    anthropic.some(
      (tool: { name: string; input_schema: object }) => tool.name === 'demo__add' && tool.input_schema,
    ),
  );
  const gemini = JSON.parse((await run(['tools', '--format', 'gemini', '--config', file])).stdout);
  assert.equal(gemini.find((d: { name: string }) => d.name === 'demo__add').parameters.type, 'OBJECT');
  const aiSdk = JSON.parse((await run(['tools', '--format', 'ai-sdk', '--config', file])).stdout);
  assert.equal(aiSdk.demo__add.inputSchema.type, 'object');

  const wrong = await run(['tools', '--format', 'mistral', '--config', file]);
  assert.equal(wrong.code, 2);
  assert.match(
    wrong.stderr,
    /--format takes openai, openai-responses, anthropic, gemini or ai-sdk, got "mistral"/,
  );
  const misplaced = await run(['resources', '--format', 'openai', '--', process.execPath, demo]);
  assert.equal(misplaced.code, 2);
  assert.match(misplaced.stderr, /--format is for tools/);
});

test('search lists the best matches across the servers; a lazy server is searched from the manifest of an earlier run', async () => {
  const file = config({
    files: catalog([
      { name: 'read_file', description: 'Reads the contents of a file.', properties: ['path'] },
    ]),
    github: {
      ...catalog([{ name: 'create_issue', description: 'Opens a new issue in a GitHub repository.' }]),
      lazy: true,
    },
  });
  const first = await run(['search', 'github issue', '--config', file]);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /github__create_issue/, 'never started, not in a manifest yet');
  await run(['tools', '--config', file]); // starts every server: the manifest keeps their lists
  assert.ok(
    existsSync(path.join(home, 'conduit-mcp', 'pools')),
    'manifests go under $XDG_CONFIG_HOME/conduit-mcp/pools',
  );

  const found = await run(['search', 'github issue', '--config', file]);
  assert.equal(found.code, 0, found.stderr);
  const lines = found.stdout.trim().split('\n');
  assert.match(lines[0]!, /TOOL\s+SERVER\s+SCORE\s+DESCRIPTION/);
  assert.match(lines[1]!, /github__create_issue\s+github \(not started\)\s+\d+\.\d\d\s+Opens a new issue/);

  const json = JSON.parse(
    (await run(['search', 'read a file', '--limit', '1', '--json', '--config', file])).stdout,
  );
  assert.equal(json.length, 1);
  assert.equal(json[0].name, 'files__read_file');
  assert.equal(json[0].from, 'live');

  const noConfig = await run(['search', 'x', '--', process.execPath, demo]);
  assert.equal(noConfig.code, 2);
  assert.match(noConfig.stderr, /search takes --config <file>/);
  const noQuery = await run(['search', '--config', file]);
  assert.equal(noQuery.code, 2);
  assert.match(noQuery.stderr, /search needs a query/);
});
