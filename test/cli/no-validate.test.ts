// Issue 35, item 19: --no-validate sends --arg values as written (never refused for their type), and
// an argument name the schema does not declare is warned about, with the closest declared name,
// even when the schema allows extra keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOnce, CLI_SERVER, run } from '../helpers/cli.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

test('--no-validate sends a value the schema would refuse as the string written', async () => {
  const checked = await run(['call', 'echo', '--arg', 'text=hi', '--arg', 'count=many', ...CLI_SERVER()]);
  assert.equal(checked.code, 2, checked.stderr);
  assert.match(checked.stderr, /--arg count must be an integer/);
  const sent = await run([
    'call',
    'echo',
    '--arg',
    'text=hi',
    '--arg',
    'count=many',
    '--no-validate',
    ...CLI_SERVER(),
  ]);
  assert.equal(sent.code, 0, sent.stderr);
  // The echo tool answers with the arguments it received.
  assert.equal(sent.stdout, '{"text":"hi","count":"many"}\n');
  // A value that fits the schema is still typed.
  const typed = await run([
    'call',
    'echo',
    '--arg',
    'text=hi',
    '--arg',
    'count=3',
    '--no-validate',
    ...CLI_SERVER(),
  ]);
  assert.equal(typed.stdout, '{"text":"hi","count":3}\n');
});

test('an undeclared argument is warned about with the closest declared name, and still sent', async () => {
  for (const validate of [[], ['--no-validate']]) {
    const result = await run([
      'call',
      'echo',
      '--arg',
      'text=hi',
      '--arg',
      'cuont=2',
      ...validate,
      ...CLI_SERVER(),
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^conduit-mcp: warning: echo declares no argument cuont \(did you mean count\?\); sending it anyway$/m,
    );
    assert.equal(result.stdout, '{"text":"hi","cuont":"2"}\n');
  }
  const far = await run(['call', 'echo', '--arg', 'text=hi', '--arg', 'zzzzzz=1', ...CLI_SERVER()]);
  assert.match(far.stderr, /^conduit-mcp: warning: echo declares no argument zzzzzz; sending it anyway$/m);
});
