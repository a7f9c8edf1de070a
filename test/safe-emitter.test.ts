import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SafeEmitter } from '../src/user-code.js';
import { captureUncaught, UserCallbackError } from './helpers/user-errors.js';

type Events = Record<string, unknown[]>;

test('a listener gets exactly the arguments emitted, none added, alone or with others', () => {
  for (const listeners of [1, 2]) {
    const emitter = new SafeEmitter<Events>();
    const seen: unknown[][] = [];
    for (let i = 0; i < listeners; i++) emitter.on('event', (...args: unknown[]) => seen.push(args));
    const emits: unknown[][] = [[], [undefined], ['a'], ['a', undefined], ['a', 'b'], ['a', 'b', 'c', 'd']];
    for (const args of emits) {
      seen.length = 0;
      assert.equal(emitter.emit('event', ...args), true);
      assert.equal(seen.length, listeners);
      for (const got of seen)
        assert.deepStrictEqual(got, args, `${listeners} listener(s), ${args.length} args`);
    }
    assert.equal(emitter.emit('nobody'), false);
  }
});

test('the emitter is `this` for a listener, and a throwing or rejecting one is re-thrown later, after the others ran', async () => {
  const captured = captureUncaught();
  try {
    const emitter = new SafeEmitter<Events>();
    let self: unknown;
    const order: string[] = [];
    emitter.on('event', function (this: unknown) {
      self = this;
      order.push('first');
      throw new UserCallbackError('a listener');
    });
    emitter.on('event', () => {
      order.push('second');
    });
    const lone = new SafeEmitter<Events>();
    lone.on('event', async () => {
      throw new UserCallbackError('a lone async listener');
    });
    assert.equal(emitter.emit('event', 1, 2), true, 'emit does not throw');
    assert.equal(lone.emit('event', 1), true);
    assert.equal(self, emitter);
    assert.deepEqual(order, ['first', 'second']);
    assert.equal(captured.count, 0, 'nothing is thrown inside emit');
    // Two turns: the async listener's rejection is re-thrown from an immediate queued after this one.
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    assert.deepEqual(
      captured
        .stop()
        .map((error) => error.message)
        .sort(),
      ['user code threw in a listener', 'user code threw in a lone async listener'],
    );
  } finally {
    process.setUncaughtExceptionCaptureCallback(null);
  }
});
