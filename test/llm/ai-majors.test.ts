// The AI SDK adapter against every `ai` major the peer range covers: v5 is the dev dependency
// `ai` (ai-sdk-loop.test.ts); v6 and v7 are the dev aliases ai-v6 and ai-v7, loaded in a child
// process whose `ai` resolves to them (ai-majors/alias-hooks.mjs), running a generateText loop with
// that major's mock model. The types: ai-majors/types.ts is type-checked against both.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = path.join(import.meta.dirname, 'ai-majors');

for (const alias of ['ai-v6', 'ai-v7']) {
  test(`${alias}: generateText runs the MCP tools toolsFor('ai-sdk') built; results and errors reach the model`, async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--import', path.join(here, 'register.mjs'), path.join(here, 'loop.ts')],
      { env: { ...process.env, AI_PACKAGE: alias }, timeout: 60_000 },
    );
    const { text, shown, searchTools } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.equal(text, 'done');
    assert.deepEqual(shown[0], { type: 'text', value: '42' });
    assert.equal(shown[1].type, 'error-text');
    assert.match(shown[1].value, /was not called: its arguments do not match its input schema/);
    assert.deepEqual(searchTools, ['search_tools', 'call_tool']);
  });
}
