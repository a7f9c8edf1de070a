// Issue 35, item 16: in `shell` on a terminal, Ctrl-C during a call cancels that call (the server
// gets notifications/cancelled), its progress stops painting, its late result is not printed, and
// the next command runs at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildOnce, CLI_SERVER, startInTerminal } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const recorded = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id?: unknown; method?: string; params?: Record<string, unknown> });

/** Waits until `check` holds, up to `ms`, polling. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${ms} ms`);
  }
}

test('shell: Ctrl-C cancels the running call on the wire, drops its progress and late result, and the shell goes on', async () => {
  const record = path.join(temporaryDirectory(), 'record.jsonl');
  const terminal = startInTerminal(['shell', ...CLI_SERVER('--record', record)]);
  await terminal.waitFor(/cli-fixture> $/);

  // A call that paints progress every 100 ms and never answers.
  terminal.type('call wait every=100\r');
  await until(() => /\u001b\[2K3\b/.test(terminal.screen()), 10_000, 'the third progress paint');
  terminal.type('\u0003');
  await terminal.waitFor(/conduit-mcp: cancelled\s+cli-fixture> $/);
  const afterFirstCancel = terminal.screen().length;

  // A call that answers after 2 s: cancelled first, its answer must never be printed.
  terminal.type('call slow ms=2000\r');
  await until(() => recorded(record).some((line) => line.params?.name === 'slow'), 10_000, 'the slow call');
  terminal.type('\u0003');
  await terminal.waitFor(/conduit-mcp: cancelled[\s\S]*conduit-mcp: cancelled\s+cli-fixture> $/);
  terminal.type('call echo text=after\r');
  await terminal.waitFor(/\{"text":"after"\}\s+cli-fixture> $/);
  // Past the slow call's answer (2 s), with the first call's server still sending progress.
  await sleep(2500);
  terminal.type('exit\r');
  const { code, screen } = await terminal.finished;
  assert.equal(code, 0, screen);
  assert.doesNotMatch(screen, /slow done/, 'the cancelled call printed its late result');
  assert.doesNotMatch(
    screen.slice(afterFirstCancel),
    /\u001b\[2K\d/,
    'the cancelled call went on painting its progress',
  );
  const lines = recorded(record);
  for (const name of ['wait', 'slow']) {
    const call = lines.find((line) => line.method === 'tools/call' && line.params?.name === name);
    assert.ok(call, `the ${name} call reached the server`);
    const cancel = lines.find(
      (line) => line.method === 'notifications/cancelled' && line.params?.requestId === call.id,
    );
    assert.ok(cancel, `no notifications/cancelled for the ${name} call: ${JSON.stringify(lines)}`);
  }
  // The echo ran before the slow call would have answered: it follows the cancel on the wire at once.
  const order = lines.map((line) => (line.method === 'tools/call' ? line.params?.name : line.method));
  assert.ok(order.indexOf('echo') > order.lastIndexOf('notifications/cancelled'), order.join(', '));
});
