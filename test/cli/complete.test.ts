// Issue 35, items 20 and 23: `complete` takes context arguments (`--arg department=Sales`), sent as
// completion/complete's context.arguments; the demo server declares completions and answers them,
// a dependent one included, so the README's `complete` examples work as written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildOnce, CLI_SERVER, demo, run } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const DEMO = ['--', process.execPath, demo];

test('--arg name=value reaches the server as completion/complete context.arguments', async () => {
  const record = path.join(temporaryDirectory(), 'record.jsonl');
  const args = ['--arg', 'department=Sales', '--arg', 'region=EU'];
  const result = await run([
    'complete',
    'prompt:greet',
    'who',
    'b',
    ...args,
    ...CLI_SERVER('--record', record),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const request = readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"completion/complete"'))
    .map((line) => JSON.parse(line) as { params: Record<string, unknown> })[0];
  assert.deepEqual(request?.params.context, { arguments: { department: 'Sales', region: 'EU' } });
  const none = await run(['complete', 'prompt:greet', 'who', 'b', ...CLI_SERVER('--record', record)]);
  assert.equal(none.code, 0, none.stderr);
  const plain = readFileSync(record, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"completion/complete"'))
    .map((line) => JSON.parse(line) as { params: Record<string, unknown> })[1];
  assert.equal(plain?.params.context, undefined, 'no context is sent when no --arg is given');
});

test('the demo server completes a dependent argument from the context, in both eras', async () => {
  for (const protocol of ['modern', 'legacy']) {
    const sales = await run([
      'complete',
      'prompt:colleague',
      'name',
      'M',
      '--arg',
      'department=Sales',
      '--protocol',
      protocol,
      ...DEMO,
    ]);
    assert.equal(sales.code, 0, sales.stderr);
    assert.equal(sales.stdout, 'Margaret\nMary\nMax\n');
    const engineering = await run([
      'complete',
      'prompt:colleague',
      'name',
      'a',
      '--arg',
      'department=Engineering',
      ...DEMO,
    ]);
    assert.equal(engineering.stdout, 'Ada\nAlan\n');
    const topics = await run(['complete', 'resource:demo://notes/{topic}', 'topic', 'pr', '--json', ...DEMO]);
    assert.deepEqual(JSON.parse(topics.stdout).values, ['progress', 'prompts']);
  }
});
