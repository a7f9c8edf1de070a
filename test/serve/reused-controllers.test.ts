// The gateway's reused AbortControllers: a controller comes back only when it can serve another
// call unchanged (not aborted, no listener left on its signal).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReusedControllers } from '../../src/serve/reused-controllers.js';

test('a controller given back clean is the next one taken', () => {
  const controllers = new ReusedControllers();
  const first = controllers.take();
  controllers.give(first);
  assert.equal(controllers.take(), first);
});

test('an aborted controller is never taken again', () => {
  const controllers = new ReusedControllers();
  const first = controllers.take();
  first.abort(new Error('the host cancelled'));
  controllers.give(first);
  const next = controllers.take();
  assert.notEqual(next, first);
  assert.equal(next.signal.aborted, false);
});

test('a controller whose signal is still listened to is not reused', () => {
  const controllers = new ReusedControllers();
  const first = controllers.take();
  const listener = () => assert.fail('a later call must not abort an earlier listener');
  first.signal.addEventListener('abort', listener);
  controllers.give(first);
  const next = controllers.take();
  assert.notEqual(next, first);
  next.abort();
  first.signal.removeEventListener('abort', listener);
});
