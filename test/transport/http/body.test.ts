// readBounded on a stream: what is buffered already is taken at once; a body complete by its
// Content-Length is the answer at once, without waiting for its end; the limit holds on every path.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { BodyTooLargeError, readBounded } from '../../../src/transport/http/body.js';

/** A body stream like undici's: chunks pushed by the parser, the end pushed only when told. */
function body(chunks: string[], end: boolean): Readable {
  const stream = new Readable({ read() {} });
  for (const chunk of chunks) stream.push(Buffer.from(chunk));
  if (end) stream.push(null);
  return stream;
}

describe('readBounded', () => {
  test('a body complete by its Content-Length resolves though its end is not parsed yet', async () => {
    const stream = body(['{"a":', '1}'], false);
    // An idle limit of 50 ms would reject a body that waited for its end.
    const text = readBounded(stream, 1024, '7', 50);
    assert.ok(Buffer.isBuffer(text), 'given at once, not as a promise');
    assert.equal(text.toString(), '{"a":1}');
    stream.push(null);
  });

  test('a body shorter than its Content-Length so far waits for the rest', async () => {
    const stream = body(['{"a":'], false);
    const reading = readBounded(stream, 1024, '7', 5000);
    setTimeout(() => {
      stream.push(Buffer.from('1}'));
      stream.push(null);
    }, 20);
    assert.equal((await reading).toString(), '{"a":1}');
  });

  test('without a Content-Length, the end decides; a stall past idleMs fails', async () => {
    assert.equal((await readBounded(body(['[1,', '2]'], true), 1024)).toString(), '[1,2]');
    const stalled = body(['[1,'], false);
    await assert.rejects(async () => readBounded(stalled, 1024, undefined, 30), {
      code: 'CONDUIT_BODY_IDLE',
    });
    assert.ok(stalled.destroyed);
  });

  test('the limit holds for what was buffered already and for what comes later', async () => {
    const whole = body(['x'.repeat(600), 'y'.repeat(600)], true);
    assert.throws(() => readBounded(whole, 1000), BodyTooLargeError);
    assert.ok(whole.destroyed);
    const later = body(['x'.repeat(600)], false);
    const reading = readBounded(later, 1000, undefined, 5000);
    setTimeout(() => later.push(Buffer.from('y'.repeat(600))), 20);
    await assert.rejects(async () => reading, BodyTooLargeError);
    assert.ok(later.destroyed);
    assert.throws(() => readBounded(body([], false), 1000, '1001'), BodyTooLargeError);
  });
});
