import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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

test('the cap counts bytes once they reach a real pipe too: CJK text passes it at its byte size, not a third of it', async () => {
  // A pipe counts a string in writableLength by UTF-16 code units; the queue must hand it bytes.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.stdin.on('error', () => {});
  try {
    const queue = new WriteQueue(child.stdin, 1 << 20);
    const text = `${'漢'.repeat(300_000)}\n`; // 900,001 bytes, 300,001 code units
    assert.equal(queue.write(text), true);
    await nextTurn();
    // The OS pipe took at most its buffer (64 KiB on Linux); the rest is counted in bytes.
    assert.ok(queue.pendingBytes > 700_000, `${queue.pendingBytes} bytes counted`);
    assert.equal(queue.write(text), false, 'a second 900 KB does not fit under 1 MiB');
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});

test('after input arrived, the first message goes out at once and the rest of the turn is batched behind it', async () => {
  const { stream, writes } = recordingStream();
  const queue = new WriteQueue(stream, 1 << 20);
  queue.inputArrived();
  assert.equal(queue.write('{"n":1}\n'), true);
  assert.deepEqual(writes, ['{"n":1}\n'], 'written within write()');
  for (let i = 2; i <= 4; i++) queue.write(`{"n":${i}}\n`);
  assert.equal(writes.length, 1, 'one direct write per input, not one per message');
  await nextTurn();
  assert.deepEqual(writes, ['{"n":1}\n', '{"n":2}\n{"n":3}\n{"n":4}\n']);
  // No input since: batched again.
  queue.write('{"n":5}\n');
  assert.equal(writes.length, 2);
  await nextTurn();
  assert.deepEqual(writes.slice(2), ['{"n":5}\n']);
});

test('a direct write never overtakes what waits: a batch of this turn, or bytes the stream still holds', async () => {
  const batched = recordingStream();
  const queue = new WriteQueue(batched.stream, 1 << 20);
  queue.write('a\n');
  queue.inputArrived();
  queue.write('b\n');
  assert.deepEqual(batched.writes, [], 'b waits behind a');
  await nextTurn();
  assert.deepEqual(batched.writes, ['a\nb\n']);

  const stuck = recordingStream({ stuck: true });
  const behind = new WriteQueue(stuck.stream, 1 << 20);
  behind.inputArrived();
  behind.write('first\n'); // the stream never calls back: it keeps holding it
  behind.write('held\n');
  await nextTurn();
  behind.inputArrived();
  behind.write('third\n');
  assert.equal(behind.pendingBytes, 'first\nheld\nthird\n'.length);
  await nextTurn();
  // The stream took `first` and queues the rest in order behind it.
  assert.equal(stuck.writes[0], 'first\n');
  assert.ok(stuck.stream.writableLength > 0);
});

test('a direct write counts against the cap like any other', () => {
  const { stream } = recordingStream({ stuck: true });
  const queue = new WriteQueue(stream, 10);
  queue.inputArrived();
  assert.equal(queue.write('ééééé'), true);
  queue.inputArrived();
  assert.equal(queue.write('é'), false, 'refused: 12 bytes would pass the cap of 10');
  assert.equal(queue.pendingBytes, 10);
});
