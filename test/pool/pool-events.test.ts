// The pool's events follow the rule of every emitter of the library (SafeEmitter): a listener
// that throws is re-thrown later, and neither stops the other listeners nor the pool.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientPool } from '../../src/index.js';
import { guardProcesses } from '../helpers/processes.js';
import { captureUncaught, UserCallbackError } from '../helpers/user-errors.js';
import { textOf } from '../helpers/wait.js';
import { fixtureTransport } from './helpers.js';

guardProcesses();

test('a pool listener that throws does not stop the other listeners of that event, nor the pool', async () => {
  const captured = captureUncaught();
  try {
    await using pool = new ClientPool({
      servers: { one: { transport: fixtureTransport('named-tools.mjs', [JSON.stringify(['echo'])]) } },
    });
    const order: string[] = [];
    for (const event of ['serverReady', 'ready'] as const) {
      pool.on(event, () => {
        order.push(`${event}: first`);
        throw new UserCallbackError(`the first ${event} listener`);
      });
      pool.on(event, ({ server }) => {
        order.push(`${event}: second (${server})`);
      });
    }
    await pool.connect();
    assert.deepEqual(order, [
      'serverReady: first',
      'serverReady: second (one)',
      'ready: first',
      'ready: second (one)',
    ]);
    assert.match(textOf(await pool.callTool({ name: 'one__echo' })), /^echo /);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      captured
        .stop()
        .map((error) => error.message)
        .sort(),
      ['user code threw in the first ready listener', 'user code threw in the first serverReady listener'],
    );
  } finally {
    process.setUncaughtExceptionCaptureCallback(null);
  }
});
