// Windows lane (npm run test:windows): the shutdown escalation and the exit hook on Windows Node,
// where there are no signals to send: stdin EOF, then taskkill.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import { fixture } from '../helpers/fixtures.js';
import { guardProcesses, isRunning, requireWindows, waitGone } from './processes.js';

requireWindows();
guardProcesses();

/** Starts a fixture server and waits for its first message (its pid). */
async function started(name: string, extra: Partial<StdioOptions>) {
  const transport = new StdioTransport({
    command: process.execPath,
    args: [fixture(name)],
    stderr: 'discard',
    ...extra,
  });
  const first = new Promise<void>((resolve) => transport.once('message', () => resolve()));
  await transport.start();
  await first;
  return transport;
}

/** Times from close() to `exited`. */
async function timeShutdown(transport: StdioTransport) {
  const begin = performance.now();
  await transport.close();
  const closedAfter = performance.now() - begin;
  const status = await transport.exited;
  return { closedAfter, goneAfter: performance.now() - begin, status };
}

test('a server that exits on EOF is gone long before stdinGrace, with its own exit code', async () => {
  const transport = new StdioTransport({
    command: process.execPath,
    args: [fixture('echo.mjs')],
    stdinGrace: 20_000,
  });
  await transport.start();
  const pid = transport.pid!;
  const { goneAfter, status } = await timeShutdown(transport);
  assert.deepEqual(status, { code: 0, signal: null });
  assert.ok(goneAfter < 5000, `gone after ${goneAfter} ms`);
  assert.equal(isRunning(pid), false);
});

test('a server that ignores EOF is killed by taskkill just after stdinGrace', async () => {
  const transport = await started('ignore-eof.mjs', { stdinGrace: 1000, termGrace: 1000 });
  const pid = transport.pid!;
  const { closedAfter, goneAfter, status } = await timeShutdown(transport);
  assert.ok(closedAfter < 100, `close() resolved after ${closedAfter} ms, without waiting for the process`);
  assert.ok(goneAfter >= 950, `gone after ${goneAfter} ms, before stdinGrace`);
  assert.ok(goneAfter < 10_000, `gone after ${goneAfter} ms`);
  assert.equal(typeof status.code, 'number', 'taskkill ends a process with an exit code');
  assert.equal(status.signal, null);
  assert.equal(isRunning(pid), false);
});

test('termGrace is not waited for: Windows has no SIGTERM stage, taskkill follows stdinGrace', async () => {
  const transport = await started('ignore-term.mjs', { stdinGrace: 500, termGrace: 30_000 });
  const pid = transport.pid!;
  const { goneAfter } = await timeShutdown(transport);
  assert.ok(goneAfter >= 450, `gone after ${goneAfter} ms, before stdinGrace`);
  assert.ok(goneAfter < 10_000, `gone after ${goneAfter} ms: termGrace was waited for`);
  assert.equal(isRunning(pid), false);
});

test('a server that exits on its own closes with its status and is not killed', async () => {
  const transport = new StdioTransport({ command: process.execPath, args: [fixture('echo.mjs')] });
  await transport.start();
  transport.send({ jsonrpc: '2.0', id: 1, method: 'exit', params: { code: 7 } });
  const [reason] = await once(transport, 'close');
  assert.deepEqual(reason, { type: 'exit_status', status: 7, signal: null });
  assert.deepEqual(await transport.exited, { code: 7, signal: null });
});

const host = path.resolve(import.meta.dirname, '../fixtures/hosts/host.js');

/** Runs test/fixtures/hosts/host.ts (compiled), which starts a server and ends in the given way. */
async function runHost(mode: string, server: string) {
  const child = spawn(process.execPath, [host, mode, server], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  let errors = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    errors += text;
  });
  const [code] = await once(child, 'exit');
  const serverPid = Number.parseInt(output, 10);
  assert.ok(
    serverPid > 0,
    `the host printed the server pid (stdout ${JSON.stringify(output)}, stderr ${errors})`,
  );
  return { code: code as number, serverPid, errors };
}

test('a script that closes its transport and returns stays alive until taskkill has ended the server', async () => {
  const { code, serverPid } = await runHost('close-and-return', 'ignore-eof.mjs');
  assert.equal(code, 0);
  assert.equal(isRunning(serverPid), false, 'the server was gone before the host exited');
});

test('process.exit() with a live server kills it synchronously from the exit hook', async () => {
  const { code, serverPid } = await runHost('exit', 'ignore-term.mjs');
  assert.equal(code, 0);
  assert.equal(await waitGone(serverPid, 3000), true, 'the exit hook killed the server');
});

test('an uncaught exception with a live server kills it too', async () => {
  const { code, serverPid, errors } = await runHost('throw', 'ignore-term.mjs');
  assert.notEqual(code, 0);
  assert.match(errors, /deliberate uncaught exception/);
  assert.equal(await waitGone(serverPid, 3000), true, 'the exit hook killed the server');
});
