// Windows lane (npm run test:windows): framing, limits and exits over Windows pipes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionClosedError } from '../../src/errors.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import { nodeServer } from '../helpers/fixtures.js';
import { closed, nextMessage, raw } from '../helpers/transport.js';
import { guardProcesses, requireWindows } from './processes.js';

requireWindows();
guardProcesses();

const FAST = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;

async function open(name: string, extra: Partial<StdioOptions> = {}) {
  const transport = new StdioTransport(nodeServer(name, [], { ...FAST, ...extra }));
  const messages: JsonRpcMessage[] = [];
  transport.on('message', (message) => messages.push(message));
  await transport.start();
  return { transport, messages };
}

test('requests and answers go through in order', async () => {
  const { transport, messages } = await open('echo.mjs');
  for (let id = 1; id <= 50; id++) transport.send({ jsonrpc: '2.0', id, method: 'ping', params: { n: id } });
  while (messages.length < 50) await nextMessage(transport);
  assert.deepEqual(
    messages.map((message) => (message as { id: number }).id),
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  await transport.close();
  await transport.exited;
});

test('CRLF line ends, banners and blank lines are handled without corrupting the next message', async () => {
  const { transport, messages } = await open('echo.mjs');
  transport.send(
    raw(1, 'Server v1.2 starting...\r\n\r\n{"jsonrpc":"2.0","method":"notifications/crlf"}\r\n'),
  );
  while (messages.length < 2) await nextMessage(transport);
  assert.deepEqual(messages, [
    { jsonrpc: '2.0', method: 'notifications/crlf' },
    { jsonrpc: '2.0', id: 1, result: { written: true } },
  ]);
  await transport.close();
  await transport.exited;
});

test('an answer of several MiB split over many chunks arrives whole', async () => {
  const { transport } = await open('echo.mjs');
  transport.send({ jsonrpc: '2.0', id: 1, method: 'bytes', params: { size: 5 * 1024 * 1024 } });
  const message = (await nextMessage(transport)) as { result: { data: string } };
  assert.equal(message.result.data.length, 5 * 1024 * 1024);
  await transport.close();
  await transport.exited;
});

test('a line longer than maxMessageBytes closes with message_too_large and stops the server', async () => {
  const { transport } = await open('flood.mjs', { maxMessageBytes: 1024 * 1024 });
  assert.deepEqual(await closed(transport), { type: 'message_too_large', limit: 1024 * 1024 });
  await transport.exited;
});

test('send never waits: a server that never reads gets write_queue_full, then taskkill', async () => {
  const { transport } = await open('no-read.mjs', { maxWriteQueueBytes: 1024 * 1024 });
  await nextMessage(transport);
  const big = 'y'.repeat(64 * 1024);
  let thrown: unknown;
  const started = performance.now();
  try {
    for (let sent = 0; sent < 1000; sent++)
      transport.send({ jsonrpc: '2.0', method: 'notifications/x', params: { big } });
  } catch (error) {
    thrown = error;
  }
  assert.ok(performance.now() - started < 2000, 'send returned without waiting for the server');
  assert.ok(thrown instanceof ConnectionClosedError, 'the send that passed the cap threw');
  assert.deepEqual(thrown.reason, { type: 'write_queue_full', limit: 1024 * 1024 });
  const status = await transport.exited;
  assert.equal(status.signal, null, 'Windows ends a process with an exit code, not a signal');
});

test('an exit is reported with its status, after the messages written before it', async () => {
  const { transport, messages } = await open('echo.mjs');
  transport.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'exit',
    params: { code: 7, partial: '{"jsonrpc":"2.0","method":"notifications/last"}\n' },
  });
  assert.deepEqual(await closed(transport), { type: 'exit_status', status: 7, signal: null });
  assert.deepEqual(messages, [{ jsonrpc: '2.0', method: 'notifications/last' }]);
  assert.deepEqual(await transport.exited, { code: 7, signal: null });
});
