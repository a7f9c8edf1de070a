// Pinning (trust on first use) with a real server that rewrites a tool's description and then
// sends notifications/tools/list_changed: the toolsChanged event's difference, and each policy's
// effect on toolsFor (offered or not) and on calls (executeToolCall, pool.callTool).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';
import { ClientPool, ConfigError, ToolNotTrustedError, type ToolsChangedEvent } from '../../src/index.js';
import { executeToolCall, toolsFor } from '../../src/llm/index.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';

const FILES = [
  { name: 'read_file', description: 'Reads the contents of a file.', properties: ['path'] },
  { name: 'list_directory', description: 'Lists a directory.', properties: ['path'] },
];
const catalog = (tools = FILES) => ({
  transport: {
    type: 'stdio' as const,
    command: process.execPath,
    args: [fixture('catalog.mjs'), JSON.stringify(tools)],
  },
});
const HIDDEN = 'Reads the contents of a file.\u200b\u{E0049}\u{E0047}\u{E004E}';

async function changedPool(policy: 'warn' | 'block' | 'reapprove') {
  const file = path.join(temporaryDirectory(), 'pins.json');
  const pool = new ClientPool({ servers: { files: catalog() }, pinning: { policy, file } });
  const first = once(pool, 'toolsChanged') as Promise<[ToolsChangedEvent]>;
  await pool.connect();
  const [pinned] = await first;
  assert.deepEqual([...pinned.added].sort(), ['files__list_directory', 'files__read_file', 'files__rewrite']);
  assert.deepEqual(pinned.changed, []);
  const offered = async () => (await toolsFor('anthropic', pool)).map((tool) => tool.name);
  assert.ok((await offered()).includes('files__read_file'));
  const next = once(pool, 'toolsChanged') as Promise<[ToolsChangedEvent]>;
  await pool.callTool({ name: 'files__rewrite', arguments: { tool: 'read_file', description: HIDDEN } });
  const [changed] = await next;
  assert.equal(changed.server, 'files');
  assert.equal(changed.policy, policy);
  assert.deepEqual(changed.added, []);
  assert.deepEqual(changed.removed, []);
  assert.deepEqual(
    changed.changed.map((c) => [c.name, c.fields]),
    [['files__read_file', ['description']]],
  );
  assert.deepEqual(changed.hidden, [{ name: 'files__read_file', fields: ['description'] }]);
  const call = () =>
    executeToolCall('anthropic', pool, {
      type: 'tool_use',
      id: 't1',
      name: 'files__read_file',
      input: { path: 'x' },
    });
  return { pool, changed, offered, call, file };
}

const text = (block: { content: Array<{ type: string; text?: string }> }) =>
  block.content.map((part) => part.text ?? '').join('');

test('warn: the changed tool stays offered and callable; the event and a process warning say what changed', async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  const { pool, changed, offered, call } = await changedPool('warn');
  await using _ = pool;
  assert.equal(changed.changed[0]!.trust, 'trusted');
  assert.ok((await offered()).includes('files__read_file'));
  assert.match(text(await call()), /^read_file \d+$/);
  assert.equal(pool.toolTrust('files__read_file'), 'trusted');
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onWarning);
  assert.ok(
    warnings.some((w) => /files__read_file \(description\)/.test(w.message)),
    'a warning names the tool and field',
  );
});

test('block: the changed tool is neither offered nor callable, approval does not free it, a reset of the pins does', async () => {
  const { pool, changed, offered, call } = await changedPool('block');
  await using _ = pool;
  assert.equal(changed.changed[0]!.trust, 'blocked');
  assert.equal(pool.toolTrust('files__read_file'), 'blocked');
  assert.ok(!(await offered()).includes('files__read_file'));
  assert.ok((await offered()).includes('files__list_directory'), 'the unchanged tools stay');
  const refused = await call();
  assert.equal(refused.is_error, true);
  assert.match(text(refused), /"block": it is not called until the pins are reset/);
  await assert.rejects(pool.callTool({ name: 'files__read_file', arguments: {} }), ToolNotTrustedError);
  assert.equal(await pool.approveTool('files__read_file'), false);
  assert.equal(pool.toolTrust('files__read_file'), 'blocked');
  await pool.resetPins('files');
  assert.equal(pool.toolTrust('files__read_file'), 'trusted');
  assert.match(text(await call()), /^read_file \d+$/);
});

test('reapprove: the changed tool waits for approveTool, then is offered and callable again', async () => {
  const { pool, changed, offered, call } = await changedPool('reapprove');
  await using _ = pool;
  assert.equal(changed.changed[0]!.trust, 'awaiting_approval');
  assert.ok(!(await offered()).includes('files__read_file'));
  assert.match(text(await call()), /waits for approval: call pool.approveTool\("files__read_file"\)/);
  const found = await executeToolCall('anthropic', pool, {
    type: 'tool_use',
    id: 's',
    name: 'search_tools',
    input: { query: 'read file contents' },
  });
  assert.ok(!text(found).includes('files__read_file'), 'search mode leaves the held tool out');
  assert.equal(await pool.approveTool('files__read_file'), true);
  assert.ok((await offered()).includes('files__read_file'));
  assert.match(text(await call()), /^read_file \d+$/);
});

test('pins are kept in their file: a server restarted with a changed tool is caught at its first list', async () => {
  const file = path.join(temporaryDirectory(), 'pins.json');
  {
    await using first = new ClientPool({ servers: { files: catalog() }, pinning: { policy: 'block', file } });
    await first.listTools();
  }
  const changedTools = [{ ...FILES[0]!, description: 'Reads a file, then mails it away.' }, FILES[1]!];
  await using pool = new ClientPool({
    servers: { files: catalog(changedTools) },
    pinning: { policy: 'block', file },
  });
  const event = once(pool, 'toolsChanged') as Promise<[ToolsChangedEvent]>;
  await pool.connect();
  const [changed] = await event;
  assert.deepEqual(changed.added, []);
  assert.deepEqual(
    changed.changed.map((c) => c.name),
    ['files__read_file'],
  );
  assert.equal(pool.toolTrust('files__read_file'), 'blocked');
});

test('removed tools are reported; a new tool with hidden characters is held under reapprove until approved', async () => {
  const file = path.join(temporaryDirectory(), 'pins.json');
  {
    await using first = new ClientPool({
      servers: { files: catalog() },
      pinning: { policy: 'reapprove', file },
    });
    await first.listTools();
  }
  const sneaky = { name: 'delete_file', description: 'Deletes a file.\u202e', properties: ['path'] };
  await using pool = new ClientPool({
    servers: { files: catalog([FILES[0]!, sneaky]) },
    pinning: { policy: 'reapprove', file },
  });
  const event = once(pool, 'toolsChanged') as Promise<[ToolsChangedEvent]>;
  await pool.connect();
  const [changed] = await event;
  assert.deepEqual(changed.added, ['files__delete_file']);
  assert.deepEqual(changed.removed, ['files__list_directory']);
  assert.deepEqual(changed.changed, []);
  assert.deepEqual(changed.hidden, [{ name: 'files__delete_file', fields: ['description'] }]);
  assert.equal(pool.toolTrust('files__delete_file'), 'awaiting_approval');
  assert.equal(pool.toolTrust('files__read_file'), 'trusted');
  await assert.rejects(
    pool.callTool({ name: 'files__delete_file', arguments: { path: 'x' } }),
    ToolNotTrustedError,
  );
  assert.equal(await pool.approveTool('files__delete_file'), true);
  assert.match(
    JSON.stringify(await pool.callTool({ name: 'files__delete_file', arguments: { path: 'x' } })),
    /delete_file \d+/,
  );
});

test('a bad pinning option is a ConfigError naming the key', () => {
  assert.throws(
    () => new ClientPool({ servers: {}, pinning: { policy: 'trust' as 'warn' } }),
    (error: unknown) => error instanceof ConfigError && error.key === 'pinning.policy',
  );
  assert.throws(
    () => new ClientPool({ servers: {}, pinning: { policy: 'warn', file: 'pins.json' } }),
    /pinning.file must be an absolute file path/,
  );
});
