// Defect 1 (issue 20): a signal cancels what is in flight, closes, escalates, exits 128+n; a second
// one kills the server's group at once. Defect 2: `| head` ends quietly and stops the server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bin, buildOnce, CLI_SERVER, shellQuote, start } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses, isRunning, waitGroupGone } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const recorded = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('signals', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    test(`${signal} during a call cancels it on the wire, stops the server and exits ${code}`, async () => {
      const record = path.join(temporaryDirectory(), 'record.jsonl');
      const cli = start(['call', 'wait', '--verbose', ...CLI_SERVER('--record', record)]);
      const [, pid] = await cli.waitFor(/spawned .* \(pid (\d+)\)/);
      await cli.waitFor(/ready: legacy era/);
      // The call is written right after ready; give it a moment to reach the server.
      const deadline = Date.now() + 10_000;
      while (!readFileSync(record, 'utf8').includes('"tools/call"') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      cli.child.kill(signal);
      const result = await cli.finished;
      assert.equal(result.code, code, result.stderr);
      const lines = recorded(record);
      const call = lines.find((line) => line.method === 'tools/call');
      assert.ok(call, 'the call reached the server');
      const cancel = lines.find((line) => line.method === 'notifications/cancelled');
      assert.ok(cancel, `no notifications/cancelled reached the server: ${JSON.stringify(lines)}`);
      assert.equal((cancel.params as { requestId: unknown }).requestId, call.id);
      assert.equal(isRunning(Number(pid)), false, 'the server outlived the command');
      assert.ok(await waitGroupGone(Number(pid), 100), 'the server group outlived the command');
      assert.match(result.stderr, new RegExp(`conduit-mcp: stopped by ${signal}`));
      assert.doesNotMatch(result.stderr, /^\s+at /m);
    });
  }

  test('SIGINT while the server is still starting stops it too', async () => {
    const cli = start(['tools', '--verbose', ...CLI_SERVER('--silent')]);
    const [, pid] = await cli.waitFor(/spawned .* \(pid (\d+)\)/);
    cli.child.kill('SIGINT');
    const result = await cli.finished;
    assert.equal(result.code, 130, result.stderr);
    assert.ok(await waitGroupGone(Number(pid), 100), 'the server group outlived the command');
  });

  test('a server that ignores EOF and SIGTERM is escalated to SIGKILL after the graces', async () => {
    const cli = start(['call', 'wait', '--verbose', ...CLI_SERVER('--ignore-term')]);
    const [, pid] = await cli.waitFor(/spawned .* \(pid (\d+)\)/);
    await cli.waitFor(/ready: legacy era/);
    const sent = performance.now();
    cli.child.kill('SIGINT');
    const result = await cli.finished;
    const took = performance.now() - sent;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /sent SIGTERM to the server's process group/);
    assert.match(result.stderr, /sent SIGKILL to the server's process group/);
    assert.ok(took > 3500, `the graces (2 s + 2 s) were not waited: ${Math.round(took)} ms`);
    assert.ok(await waitGroupGone(Number(pid), 100), 'the server group outlived the command');
  });

  test('a second Ctrl-C kills the group at once', async () => {
    const cli = start(['call', 'wait', '--verbose', ...CLI_SERVER('--ignore-term')]);
    const [, pid] = await cli.waitFor(/spawned .* \(pid (\d+)\)/);
    await cli.waitFor(/ready: legacy era/);
    cli.child.kill('SIGINT');
    await cli.waitFor(/Ctrl-C again kills it at once/);
    const second = performance.now();
    cli.child.kill('SIGINT');
    const result = await cli.finished;
    const took = performance.now() - second;
    assert.equal(result.code, 130, result.stderr);
    assert.ok(took < 1500, `the second Ctrl-C took ${Math.round(took)} ms`);
    assert.ok(await waitGroupGone(Number(pid), 1000), 'the server group outlived the second Ctrl-C');
  });
});

describe('a reader that closes early (| head)', () => {
  test('the command exits quietly, without a stack trace, and the server is stopped', async () => {
    const record = path.join(temporaryDirectory(), 'record.jsonl');
    const server = CLI_SERVER('--record', record).slice(1).map(shellQuote).join(' ');
    const command = `${shellQuote(process.execPath)} ${shellQuote(bin)} call big --arg bytes=4000000 -- ${server} | head -c 10; echo " status=\${PIPESTATUS[0]}"`;
    const shell = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    shell.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    shell.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const code = await new Promise((resolve) => shell.on('close', resolve));
    assert.equal(code, 0);
    assert.equal(stdout, 'xxxxxxxxxx status=141\n');
    assert.equal(stderr, '', 'the command wrote to stderr');
    const started = recorded(record).find((line) => line.started !== undefined);
    assert.ok(started);
    assert.ok(await waitGroupGone(Number(started.started), 100), 'the server outlived the command');
  });
});
