// A Client's stdio spec is taken as it was at construction: arrays the caller changes later do
// not reach the next start.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../../src/index.js';
import { nodeServer } from '../../helpers/fixtures.js';

test('args changed after construction reach no start', async () => {
  const spec = nodeServer('mcp.mjs', ['--era', 'legacy'], {
    stdinGrace: 300,
    termGrace: 300,
    stderr: 'discard',
  });
  const args = [...(spec.args ?? [])];
  const client = new Client({ name: 'snapshot', transport: { type: 'stdio', ...spec, args } });
  args.splice(0, args.length, '-e', 'process.exit(3)');
  await client.connect();
  assert.equal(client.era, 'legacy');
  await client.close();
});
