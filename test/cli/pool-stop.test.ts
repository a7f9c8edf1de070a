// Issue 35, item 15: the first Ctrl-C stops a whole-file command at once: the starts still
// pending are abandoned, every server process is gone, and the exit code is 130.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildOnce, start } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses, waitGroupGone } from '../helpers/processes.js';

guardProcesses();
buildOnce();

/** Three servers that never finish starting (they read requests and answer none), recording their pids. */
function slowConfig(): { file: string; record: string } {
  const directory = temporaryDirectory();
  const record = path.join(directory, 'record.jsonl');
  const slow = {
    command: process.execPath,
    args: [fixture('cli-server.mjs'), '--silent', '--record', record],
  };
  const file = path.join(directory, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { one: slow, two: slow, three: slow } }));
  return { file, record };
}

function startedPids(record: string): number[] {
  let text = '';
  try {
    text = readFileSync(record, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('{"started"'))
    .map((line) => (JSON.parse(line) as { started: number }).started);
}

for (const command of [['servers'], ['tools'], ['call', 'echo']]) {
  test(`Ctrl-C during ${command.join(' ')} --config stops every server at once and exits 130`, async () => {
    const { file, record } = slowConfig();
    const cli = start([...command, '--config', file]);
    for (let waited = 0; startedPids(record).length < 3 && waited < 150; waited++) await sleep(100);
    assert.equal(startedPids(record).length, 3, `the three servers did not start: ${cli.stderr()}`);
    const sent = performance.now();
    cli.child.kill('SIGINT');
    const result = await cli.finished;
    const took = performance.now() - sent;
    assert.equal(result.code, 130, result.stderr);
    // The servers' own start timeout is 60 s: far more than this bound.
    assert.ok(took < 10_000, `the command took ${Math.round(took)} ms to stop`);
    for (const pid of startedPids(record)) {
      assert.ok(await waitGroupGone(pid, 100), `server ${pid} outlived the command`);
    }
    assert.match(result.stderr, /stopped by SIGINT/);
  });
}
