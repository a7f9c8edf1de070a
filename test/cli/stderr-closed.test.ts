// Issue 35, item 18: stderr closed early (`2>&1 | head`, EPIPE on stderr) is not a crash: stdout's
// result is still written and the exit code is the usual one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { bin, buildOnce, CLI_SERVER, root } from '../helpers/cli.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

/** Runs the command with its stderr pipe closed by the reader before anything is written to it. */
function runWithStderrClosed(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr.destroy();
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`conduit-mcp ${args.join(' ')} did not finish`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

test('with stderr closed, --verbose output is dropped and the result and exit code are as usual', async () => {
  const ok = await runWithStderrClosed(['call', 'echo', '--arg', 'text=hi', '--verbose', ...CLI_SERVER()]);
  assert.deepEqual(ok, { code: 0, stdout: '{"text":"hi"}\n' });
  const failed = await runWithStderrClosed(['call', 'nope', '--verbose', ...CLI_SERVER()]);
  assert.deepEqual(failed, { code: 1, stdout: '' });
  const usage = await runWithStderrClosed(['call']);
  assert.deepEqual(usage, { code: 2, stdout: '' });
});
