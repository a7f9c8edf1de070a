// toolsFor(provider, pool, { search: true }): two tools instead of every tool; executeToolCall runs
// the search (matches with their schemas) and the call of a found tool (checked against its schema),
// and a lazy server found in the manifest is started alone by the call.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Client, ClientPool } from '../../src/index.js';
import { executeToolCall, PROVIDERS, toolsFor } from '../../src/llm/index.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';

const catalog = (tools: Array<{ name: string; description: string; properties?: string[] }>) => ({
  transport: {
    type: 'stdio' as const,
    command: process.execPath,
    args: [fixture('catalog.mjs'), JSON.stringify(tools)],
  },
});
const FILES = [{ name: 'read_file', description: 'Reads the contents of a file.', properties: ['path'] }];
const GITHUB = [
  {
    name: 'create_issue',
    description: 'Opens a new issue in a GitHub repository.',
    properties: ['repo', 'title'],
  },
];
const SLACK = [
  { name: 'post_message', description: 'Posts a message to a Slack channel.', properties: ['channel'] },
];

const use = (name: string, input: unknown, id = 'toolu_1') =>
  ({ type: 'tool_use', id, name, input }) as const;
const text = (block: { content: Array<{ type: string; text?: string }> }) =>
  block.content.map((part) => part.text ?? '').join('');

test('search mode offers two tools to every provider; search returns matches with schemas; call_tool checks and calls', async () => {
  await using pool = new ClientPool({ servers: { files: catalog(FILES), github: catalog(GITHUB) } });
  await pool.connect();
  for (const provider of PROVIDERS) {
    const tools = await toolsFor(provider, pool, { search: true, onWarning: (w) => assert.fail(w.reason) });
    const names =
      provider === 'ai-sdk'
        ? Object.keys(tools)
        : (tools as Array<{ name?: string; function?: { name: string } }>).map(
            (t) => t.name ?? t.function!.name,
          );
    assert.deepEqual(names, ['search_tools', 'call_tool'], provider);
  }
  const found = await executeToolCall(
    'anthropic',
    pool,
    use('search_tools', { query: 'open an issue', limit: 1 }),
  );
  const matches = JSON.parse(text(found));
  assert.equal(matches.length, 1);
  assert.equal(matches[0].name, 'github__create_issue');
  assert.equal(matches[0].description, 'Opens a new issue in a GitHub repository.');
  assert.deepEqual(Object.keys(matches[0].inputSchema.properties), ['repo', 'title']);

  const refused = await executeToolCall(
    'anthropic',
    pool,
    use('call_tool', { name: 'github__create_issue', arguments: { repo: 7 } }),
  );
  assert.equal(refused.is_error, true);
  assert.match(text(refused), /was not called: its arguments do not match its input schema/);
  const called = await executeToolCall(
    'anthropic',
    pool,
    use('call_tool', { name: 'github__create_issue', arguments: { repo: 'a/b', title: 'bug' } }),
  );
  assert.equal(called.is_error, undefined);
  assert.match(text(called), /^create_issue \d+$/);
  const openai = await executeToolCall('openai', pool, {
    id: 'c1',
    type: 'function',
    function: {
      name: 'call_tool',
      arguments: '{"name":"files__read_file","arguments":"{\\"path\\":\\"x\\"}"}',
    },
  });
  assert.match(String(openai.content), /^read_file \d+$/, 'arguments sent as JSON text are read');

  const noQuery = await executeToolCall('anthropic', pool, use('search_tools', {}));
  assert.match(text(noQuery), /needs a "query" string/);
  const noName = await executeToolCall('anthropic', pool, use('call_tool', { arguments: {} }));
  assert.match(text(noName), /call_tool was not run: call_tool needs the "name"/);
  const itself = await executeToolCall(
    'anthropic',
    pool,
    use('call_tool', { name: 'call_tool', arguments: {} }),
  );
  assert.match(text(itself), /not itself/);
  const none = await executeToolCall('anthropic', pool, use('search_tools', { query: 'zzzz' }));
  assert.match(text(none), /No tool matches "zzzz"/);
});

test('search mode needs a pool; a Client is refused with the reason', async () => {
  await using client = new Client({ name: 'one', transport: catalog(FILES).transport });
  await assert.rejects(toolsFor('openai', client, { search: true }), /needs a ClientPool/);
});

test('through search mode, a lazy server known from the manifest is found and started alone by the call', async () => {
  const manifest = path.join(temporaryDirectory(), 'pool.manifest.json');
  const servers = {
    files: catalog(FILES),
    github: { ...catalog(GITHUB), lazy: true },
    slack: { ...catalog(SLACK), lazy: true },
  };
  {
    await using earlier = new ClientPool({ servers, manifest });
    await earlier.listTools();
  }
  await using pool = new ClientPool({ servers, manifest });
  const found = JSON.parse(
    text(await executeToolCall('anthropic', pool, use('search_tools', { query: 'github issue' }))),
  );
  assert.equal(found[0].name, 'github__create_issue');
  const state = (name: string) => pool.status().find((s) => s.name === name)!.state;
  assert.equal(state('github'), 'idle');
  const called = await executeToolCall(
    'anthropic',
    pool,
    use('call_tool', { name: 'github__create_issue', arguments: { repo: 'a/b', title: 'bug' } }),
  );
  assert.match(text(called), /^create_issue \d+$/);
  assert.equal(state('github'), 'ready');
  assert.equal(state('slack'), 'idle');
});
