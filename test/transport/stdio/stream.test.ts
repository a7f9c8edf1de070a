import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionClosedError, UsageError } from '../../../src/errors.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import type { CloseReason } from '../../../src/transport/transport.js';
import { nodeServer } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';
import { closed, nextMessage, raw } from '../../helpers/transport.js';

guardProcesses();

const FAST = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;

/** Starts a fixture server and records what it emits. */
async function open(name: string, extra: Parameters<typeof nodeServer>[2] = {}, args: string[] = []) {
  const transport = new StdioTransport(nodeServer(name, args, { ...FAST, ...extra }));
  const messages: JsonRpcMessage[] = [];
  const closes: CloseReason[] = [];
  transport.on('message', (message) => messages.push(message));
  transport.on('close', (reason) => closes.push(reason));
  await transport.start();
  return { transport, messages, closes };
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

test('banners, progress bars, invalid UTF-8 and blank lines are dropped without corrupting the next message', async () => {
  const { transport, messages, closes } = await open('echo.mjs');
  const junk = Buffer.concat([
    Buffer.from('Server v1.2 starting...\n\nLoading [====    ]\rLoading [========]\r\n'),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]),
    Buffer.from('{"not":"json-rpc"}\n[1,2]\n'),
  ]);
  transport.send(raw(1, junk));
  while (messages.length < 1) await nextMessage(transport);
  assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 1, result: { written: true } }]);
  assert.deepEqual(closes, []);
  await transport.close();
  await transport.exited;
});

test('more than maxJunkLines junk lines in a row close with junk_output and stop the server', async () => {
  const { transport, messages } = await open('echo.mjs', { maxJunkLines: 3 });
  // Three junk lines, a valid answer (resets the count), then four junk lines.
  transport.send(raw(1, 'a\nb\nc\n'));
  await nextMessage(transport);
  transport.send(raw(2, 'd\ne\nf\ng\n'));
  const reason = await closed(transport);
  assert.deepEqual(reason, { type: 'junk_output', limit: 3 });
  assert.equal(
    messages.length,
    1,
    'the answer after the first junk lines was delivered, nothing after the close',
  );
  const status = await transport.exited;
  assert.equal(status.code, 0, 'the server exited on stdin EOF');
});

test('a line longer than maxMessageBytes closes with message_too_large', async () => {
  const { transport } = await open('echo.mjs', { maxMessageBytes: 1024 });
  transport.send({ jsonrpc: '2.0', id: 1, method: 'bytes', params: { size: 2048 } });
  assert.deepEqual(await closed(transport), { type: 'message_too_large', limit: 1024 });
  await transport.exited;
});

test('a server writing without a newline is cut off at the cap, holding at most about the cap', async () => {
  const before = process.memoryUsage().arrayBuffers;
  const { transport } = await open('flood.mjs', { maxMessageBytes: 4 * 1024 * 1024 });
  assert.deepEqual(await closed(transport), { type: 'message_too_large', limit: 4 * 1024 * 1024 });
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 64 * 1024 * 1024, `buffers grew by ${grown} bytes`);
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

test('send never waits: a server that never reads gets write_queue_full at the byte cap', async () => {
  const { transport } = await open('no-read.mjs', { maxWriteQueueBytes: 1024 * 1024 });
  await nextMessage(transport);
  const big = 'y'.repeat(64 * 1024);
  let sent = 0;
  let thrown: unknown;
  const started = performance.now();
  try {
    for (; sent < 1000; sent++)
      transport.send({ jsonrpc: '2.0', method: 'notifications/x', params: { big } });
  } catch (error) {
    thrown = error;
  }
  assert.ok(performance.now() - started < 2000, 'send returned without waiting for the server');
  assert.ok(thrown instanceof ConnectionClosedError, 'the send that passed the cap threw');
  assert.deepEqual(thrown.reason, { type: 'write_queue_full', limit: 1024 * 1024 });
  assert.ok(sent < 1000 && sent >= 1, `sent ${sent} messages before the cap`);
  assert.deepEqual(transport.closeReason, { type: 'write_queue_full', limit: 1024 * 1024 });
  const status = await transport.exited;
  assert.equal(status.signal, 'SIGTERM', 'a server that does not read was stopped by SIGTERM');
});

test('a write to a closed pipe (EPIPE) closes with stream_error, never an unhandled error', async () => {
  const { transport } = await open('close-stdin.mjs');
  await nextMessage(transport);
  const reason = await new Promise<CloseReason>((resolve) => {
    transport.once('close', resolve);
    const timer = setInterval(() => {
      try {
        transport.send({ jsonrpc: '2.0', method: 'notifications/x', params: { pad: 'z'.repeat(70_000) } });
      } catch {
        clearInterval(timer);
      }
    }, 10);
    transport.once('close', () => clearInterval(timer));
  });
  assert.equal(reason.type, 'stream_error');
  assert.match((reason as { error: Error }).error.message, /EPIPE|write after end|closed/i);
  await transport.exited;
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

test('death by a signal is reported with the signal', async () => {
  const { transport } = await open('echo.mjs');
  transport.send({ jsonrpc: '2.0', id: 1, method: 'kill', params: { signal: 'SIGKILL' } });
  assert.deepEqual(await closed(transport), { type: 'exit_status', status: null, signal: 'SIGKILL' });
  await transport.exited;
});

test('an exit is reported promptly even while a grandchild holds stdout open', async () => {
  const started = performance.now();
  const { transport } = await open('launcher.mjs', {}, [
    nodeServer('ignore-term.mjs').args![0]!,
    '--exit-now',
  ]);
  const reason = await closed(transport);
  assert.deepEqual(reason, { type: 'exit_status', status: 3, signal: null });
  assert.ok(performance.now() - started < 1500, 'did not wait for the grandchild to release the pipe');
  await transport.exited;
});

test('after close: nothing is emitted, send throws ConnectionClosedError with the reason', async () => {
  const { transport, messages, closes } = await open('echo.mjs');
  transport.send({ jsonrpc: '2.0', id: 1, method: 'sleep', params: { ms: 100 } });
  await transport.close();
  await transport.close();
  assert.throws(
    () => transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    (error) => error instanceof ConnectionClosedError && error.reason.type === 'closed',
  );
  await transport.exited;
  assert.deepEqual(messages, []);
  assert.deepEqual(closes, [{ type: 'closed' }]);
  assert.equal(transport.listenerCount('message'), 1);
});

test('send before start is a usage error; start runs only once', async () => {
  const transport = new StdioTransport(nodeServer('echo.mjs', [], FAST));
  assert.throws(() => transport.send({ jsonrpc: '2.0', method: 'x' }), UsageError);
  await transport.start();
  await assert.rejects(transport.start(), UsageError);
  await transport.close();
  await transport.exited;
});

test('close before start emits closed once and resolves exited', async () => {
  const transport = new StdioTransport(nodeServer('echo.mjs', [], FAST));
  const closes: CloseReason[] = [];
  transport.on('close', (reason) => closes.push(reason));
  await transport.close();
  assert.deepEqual(closes, [{ type: 'closed' }]);
  assert.deepEqual(await transport.exited, { code: null, signal: null });
});

test('close while starting stops the process once it has started', async () => {
  const transport = new StdioTransport(nodeServer('ignore-eof.mjs', [], FAST));
  const starting = transport.start();
  await transport.close();
  await assert.rejects(starting, ConnectionClosedError);
  await transport.exited;
});
