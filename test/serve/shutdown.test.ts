// The gateway's end ends every server it started: stdin EOF (stdio mode), SIGINT, SIGTERM, SIGHUP;
// after SIGKILL, which nothing can catch, the stdio servers end on their own EOF.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses, isRunning } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { bin, threeServerConfig } from './helpers.js';

guardProcesses();

/** Starts the gateway on a pipe, lists its tools (so every server runs), and returns it with its servers' pids. */
async function startedGateway(): Promise<{ gateway: ChildProcess; servers: number[]; stderr: () => string }> {
  const directory = temporaryDirectory();
  const config = threeServerConfig(directory, path.join(directory, 'fx.log'));
  const gateway = spawn(process.execPath, [bin, 'serve', '--config', config], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  gateway.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const lines: string[] = [];
  let buffer = '';
  gateway.stdout!.setEncoding('utf8').on('data', (text: string) => {
    buffer += text;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  const send = (message: object) => gateway.stdin!.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await waitFor(() => lines.some((line) => line.includes('"id":2')), 'the tools list', 30_000);
  const servers = execFileSync('pgrep', ['-P', String(gateway.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map(Number);
  assert.equal(servers.length, 3, `three servers run under the gateway: ${servers.join(', ')}`);
  return { gateway, servers, stderr: () => stderr };
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} ends the gateway and every server it started`, async () => {
    const { gateway, servers } = await startedGateway();
    const exited = once(gateway, 'exit');
    gateway.kill(signal);
    const [code] = await exited;
    assert.equal(code, { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }[signal]);
    await waitFor(() => servers.every((pid) => !isRunning(pid)), 'the servers to end', 15_000);
  });
}

test('stdin closing ends the gateway (exit 0) and every server it started', async () => {
  const { gateway, servers } = await startedGateway();
  const exited = once(gateway, 'exit');
  gateway.stdin!.end();
  const [code] = await exited;
  assert.equal(code, 0);
  await waitFor(() => servers.every((pid) => !isRunning(pid)), 'the servers to end', 15_000);
});

test('a host line over 10 MiB: the gateway says why, exits 6 and ends every server it started', async () => {
  const { gateway, servers, stderr } = await startedGateway();
  const exited = once(gateway, 'exit');
  gateway.stdin!.on('error', () => {});
  gateway.stdin!.write(
    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"${'x'.repeat(11 * 1024 * 1024)}`,
  );
  const [code] = await exited;
  assert.equal(code, 6, stderr());
  assert.match(stderr(), /the host sent a message over 10485760 bytes/);
  await waitFor(() => servers.every((pid) => !isRunning(pid)), 'the servers to end', 15_000);
});

test('after SIGKILL of the gateway, its stdio servers end on the EOF of their stdin', async () => {
  const { gateway, servers } = await startedGateway();
  const exited = once(gateway, 'exit');
  gateway.kill('SIGKILL');
  await exited;
  await waitFor(() => servers.every((pid) => !isRunning(pid)), 'the servers to end on EOF', 15_000);
});
