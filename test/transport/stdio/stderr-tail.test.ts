import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/errors.js';
import { Secret } from '../../../src/secret.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import type { CloseReason } from '../../../src/transport/transport.js';
import { temporaryDirectory } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';

guardProcesses();

const TOKEN = 'tok-4711-very-secret';
/** A server that writes `lines` to stderr, then exits 1 without answering anything. */
const dying = (lines: string) =>
  `process.stderr.write(${JSON.stringify(lines)}); setTimeout(() => process.exit(1), 20);`;

function closeReasonOf(transport: StdioTransport): Promise<CloseReason> {
  return new Promise((resolve) => transport.once('close', resolve));
}

describe('stderrTail', () => {
  test('the last bytes of stderr reach the exit_status reason, Secrets redacted, and the file still gets everything', async () => {
    const directory = temporaryDirectory();
    const log = path.join(directory, 'server.log');
    const early = 'early line that falls out of the window\n'.repeat(50);
    const transport = new StdioTransport({
      command: process.execPath,
      args: ['-e', dying(`${early}fatal: missing API key (got ${TOKEN})\n`)],
      env: { API_KEY: new Secret(TOKEN) },
      stderr: { file: log },
      stderrTail: 64,
    });
    const closed = closeReasonOf(transport);
    await transport.start();
    const reason = await closed;
    assert.equal(reason.type, 'exit_status');
    const tail = (reason as { stderrTail?: string }).stderrTail;
    assert.ok(tail !== undefined, 'no stderrTail on the close reason');
    assert.ok(Buffer.byteLength(tail) <= 64, `tail of ${Buffer.byteLength(tail)} bytes`);
    assert.match(tail, /fatal: missing API key \(got \[Secret\]\)\n$/);
    assert.doesNotMatch(tail, /tok-4711/);
    await transport.exited;
    const written = readFileSync(log, 'utf8');
    assert.equal(written, `${early}fatal: missing API key (got ${TOKEN})\n`);
  });

  test('a Secret cut by the start of the window is still redacted', async () => {
    const secret = 'S'.repeat(40);
    const transport = new StdioTransport({
      command: process.execPath,
      args: ['-e', dying(`${secret}tail`)],
      env: { K: new Secret(secret) },
      stderr: 'discard',
      stderrTail: 20,
    });
    const closed = closeReasonOf(transport);
    await transport.start();
    const reason = (await closed) as { stderrTail?: string };
    assert.equal(reason.stderrTail, '[Secret]tail');
    await transport.exited;
  });

  test('inherit still shows stderr on this process stderr while the tail is kept', async () => {
    const script = `
      import { StdioTransport } from ${JSON.stringify(path.resolve('src/transport/stdio/stdio-transport.ts'))};
      const t = new StdioTransport({ command: process.execPath, args: ['-e', ${JSON.stringify(dying('to the terminal\n'))}], stderrTail: 100 });
      t.on('close', (reason) => process.stdout.write(JSON.stringify(reason)));
      await t.start();
      await t.exited;`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(stderr, 'to the terminal\n');
    assert.deepEqual(JSON.parse(stdout), {
      type: 'exit_status',
      status: 1,
      signal: null,
      stderrTail: 'to the terminal\n',
    });
  });

  test('without the option nothing is kept; a wrong value is refused with the key', async () => {
    const transport = new StdioTransport({
      command: process.execPath,
      args: ['-e', dying('x\n')],
      stderr: 'discard',
    });
    const closed = closeReasonOf(transport);
    await transport.start();
    assert.deepEqual(await closed, { type: 'exit_status', status: 1, signal: null });
    await transport.exited;
    for (const value of [-1, 1.5, '100', 2 ** 21]) {
      assert.throws(
        () => new StdioTransport({ command: 'node', stderrTail: value as number }),
        (error: unknown) => error instanceof ConfigError && error.key === 'stderrTail',
      );
    }
  });
});
