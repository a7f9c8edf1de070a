// A ResultMap applied as a request settles must give the very outcome `.then(map)` gives (the
// generic path it replaces): the same value, or the same rejection, for any result and any map.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Connection, type ResultMap } from '../../src/client/connection.js';
import { McpError } from '../../src/errors.js';
import type { JsonObject, JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { MemoryTransport } from '../helpers/memory-transport.js';

/** A started connection whose peer answers each request with `answer(params)`. */
async function pair(
  answer: (params: JsonObject) => JsonRpcMessage | ((id: number | string) => JsonRpcMessage),
) {
  const transport = new MemoryTransport();
  transport.peer.on('message', (message) => {
    if (!('id' in message) || !('method' in message)) return;
    const made = answer((message.params ?? {}) as JsonObject);
    transport.peer.send(typeof made === 'function' ? made(message.id!) : made);
  });
  const connection = new Connection(transport, { name: 'result-map', requestTimeout: 5000 });
  await transport.start();
  return { transport, connection };
}

type Outcome = { value: unknown } | { error: unknown };
const outcome = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

/** What a map does with a result: returns something of it, throws, or returns a promise. */
const mapKind = fc.constantFrom('same', 'wrap', 'throw', 'resolved', 'rejected', 'later-throw');
function makeMap(kind: string): ResultMap {
  switch (kind) {
    case 'same':
      return (result) => result;
    case 'wrap':
      return (result) => ({ wrapped: result });
    case 'throw':
      return () => {
        throw new Error('map threw');
      };
    case 'resolved':
      return (result) => Promise.resolve({ later: result });
    case 'rejected':
      return () => Promise.reject(new Error('map rejected'));
    default:
      return () =>
        Promise.resolve().then(() => {
          throw new Error('map threw later');
        });
  }
}

/** The answer: a success with any JSON result, or a JSON-RPC error. */
const answerKind = fc.oneof(
  fc.record({ result: fc.jsonValue() }),
  fc.record({ error: fc.record({ code: fc.integer({ min: -32768, max: 32767 }), message: fc.string() }) }),
);

function sameOutcome(mapped: Outcome, generic: Outcome): void {
  if ('value' in generic) {
    assert.ok(
      'value' in mapped,
      `mapped rejected where .then(map) resolved: ${String((mapped as { error: unknown }).error)}`,
    );
    assert.deepEqual(mapped.value, generic.value);
    return;
  }
  assert.ok('error' in mapped, 'mapped resolved where .then(map) rejected');
  const [a, b] = [mapped.error as Error, generic.error as Error];
  assert.equal(a.constructor, b.constructor);
  assert.equal(a.message, b.message);
  if (b instanceof McpError) assert.equal((a as McpError).code, b.code);
}

test('a map applied as the request settles gives what .then(map) gives, for any answer and map', async () => {
  let current: { result: unknown } | { error: { code: number; message: string } } = { result: null };
  const { transport, connection } = await pair(
    () => (id) => ({ jsonrpc: '2.0', id, ...current }) as JsonRpcMessage,
  );
  await fc.assert(
    fc.asyncProperty(answerKind, mapKind, async (answer, kind) => {
      current = answer;
      const map = makeMap(kind);
      const [mapped, generic] = await Promise.all([
        outcome(connection.request('tools/call', { name: 'x' }, {}, undefined, map)),
        outcome(connection.request('tools/call', { name: 'x' }).then(map)),
      ]);
      sameOutcome(mapped, generic);
    }),
    { numRuns: 300, seed: 2206 },
  );
  await transport.close();
});

test('a map is not applied to a request that fails before an answer (the connection closes)', async () => {
  const transport = new MemoryTransport();
  const connection = new Connection(transport, { name: 'result-map', requestTimeout: 5000 });
  await transport.start();
  let called = 0;
  const pending = outcome(
    connection.request('tools/call', { name: 'x' }, {}, undefined, (result) => {
      called++;
      return result;
    }),
  );
  transport.peer.close({ type: 'exit_status', status: 1, signal: null });
  const settled = await pending;
  assert.ok('error' in settled);
  assert.equal(called, 0);
});
