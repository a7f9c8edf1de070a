import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { WriteQueue } from '../../../src/transport/stdio/write-queue.js';

/** A real Writable that records each write and can pretend the OS stopped taking bytes. */
function recordingStream(options: { stuck?: boolean } = {}) {
  const writes: string[] = [];
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      if (!options.stuck) callback();
    },
  });
  return { stream, writes };
}

test('messages queued in one turn go out in one write, on the next tick', async () => {
  const { stream, writes } = recordingStream();
  const queue = new WriteQueue(stream, 1 << 20);
  for (let i = 0; i < 100; i++) assert.equal(queue.write(`{"n":${i}}\n`), true);
  assert.equal(writes.length, 0, 'write() returned before anything was written');
  await nextTurn();
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.split('\n').length, 101);
  queue.write('{"n":"later"}\n');
  await nextTurn();
  assert.deepEqual(writes.slice(1), ['{"n":"later"}\n']);
});

test('unwritten bytes are counted, and a write past the cap is refused', async () => {
  const { stream, writes } = recordingStream({ stuck: true });
  const queue = new WriteQueue(stream, 10_000);
  const line = `${'x'.repeat(999)}\n`;
  let accepted = 0;
  while (queue.write(line)) {
    accepted++;
    await nextTurn();
  }
  assert.equal(accepted, 10);
  assert.equal(queue.pendingBytes, 10_000);
  assert.ok(writes.length >= 1);
});

test('the cap counts bytes, not characters', () => {
  const { stream } = recordingStream({ stuck: true });
  const queue = new WriteQueue(stream, 10);
  assert.equal(queue.write('ééééé'), true, '10 bytes fit');
  assert.equal(queue.write('é'), false, 'two more bytes do not');
  assert.equal(queue.pendingBytes, 10);
});

test('flushNow writes at once; close drops the rest and refuses later writes', async () => {
  const { stream, writes } = recordingStream();
  const queue = new WriteQueue(stream, 1 << 20);
  queue.write('a\n');
  queue.flushNow();
  assert.deepEqual(writes, ['a\n']);
  queue.write('b\n');
  queue.close();
  assert.equal(queue.write('c\n'), false);
  await nextTurn();
  assert.deepEqual(writes, ['a\n']);
});
