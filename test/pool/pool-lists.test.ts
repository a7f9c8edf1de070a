// A pool's lists right after a server says its list changed: the list a caller gets then is the
// new one, never the one the fetch under way is replacing.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ClientPool } from '../../src/index.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();

const fixture = path.join(import.meta.dirname, '../serve/fixtures/tools-from-file.mjs');

test('listTools right after toolsListChanged gives the new list, not the one being replaced', async () => {
  const file = path.join(temporaryDirectory(), 'tools.txt');
  writeFileSync(file, 'alpha');
  await using pool = new ClientPool({
    servers: { s: { transport: { type: 'stdio', command: process.execPath, args: [fixture, file] } } },
  });
  await pool.connect();
  const names = async () => (await pool.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(await names(), ['s__alpha', 's__announce', 's__exit']);
  for (const next of ['beta', 'gamma', 'delta']) {
    writeFileSync(file, next);
    const changed = new Promise<void>((resolve) => pool.once('toolsListChanged', () => resolve()));
    await pool.callTool({ name: 's__announce', arguments: {} });
    await changed;
    assert.deepEqual(await names(), ['s__announce', 's__exit', `s__${next}`].sort());
  }
});
