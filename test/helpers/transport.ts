import assert from 'node:assert/strict';
import { once } from 'node:events';
import { inspect } from 'node:util';
import { SpawnError } from '../../src/errors.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import type { CloseReason } from '../../src/transport/transport.js';

let nextId = 1;

/** Sends a request straight over a transport and waits (up to `ms`) for the answer's result. */
export function requestOver(transport: StdioTransport, method: string, ms = 15_000): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer to ${method} within ${ms} ms`)), ms);
    const onMessage = (message: unknown) => {
      const answer = message as { id?: unknown; result?: unknown };
      if (answer.id === id) finish(undefined, answer.result);
    };
    const onClose = (reason: CloseReason) => finish(new Error(`closed before answering: ${reason.type}`));
    function finish(error: Error | undefined, result?: unknown) {
      clearTimeout(timer);
      transport.off('message', onMessage);
      transport.off('close', onClose);
      if (error) reject(error);
      else resolve(result);
    }
    transport.on('message', onMessage);
    transport.on('close', onClose);
    transport.send({ jsonrpc: '2.0', id, method, params: {} });
  });
}

/**
 * Starts a transport that must fail to start: asserts a SpawnError, no process, `exited` settled,
 * and exactly one `'close'` with `spawn_failed`. Returns the error and that close reason.
 */
export async function failedStart(
  options: StdioOptions,
): Promise<{ error: SpawnError; reason: CloseReason }> {
  const transport = new StdioTransport({ stdinGrace: 1000, termGrace: 1000, ...options });
  const closes: CloseReason[] = [];
  transport.on('close', (reason) => closes.push(reason));
  const error = await transport.start().then(
    async () => {
      await transport.close();
      await transport.exited;
      assert.fail('start() should have rejected');
    },
    (rejection: unknown) => rejection,
  );
  assert.deepEqual(await transport.exited, { code: null, signal: null });
  assert.equal(transport.pid, undefined, 'no process was started');
  assert.ok(error instanceof SpawnError, `expected a SpawnError, got ${inspect(error)}`);
  assert.equal(error.code, 'CONDUIT_SPAWN_FAILED');
  assert.equal(closes.length, 1, "'close' is emitted exactly once");
  assert.deepEqual(closes[0], { type: 'spawn_failed', error });
  assert.equal(transport.closeReason, closes[0]);
  return { error, reason: closes[0]! };
}

/** The transport's next message. */
export function nextMessage(transport: StdioTransport): Promise<JsonRpcMessage> {
  return once(transport, 'message').then(([message]) => message as JsonRpcMessage);
}

/** The transport's close reason: at once if it has closed, else when it does. */
export function closed(transport: StdioTransport): Promise<CloseReason> {
  if (transport.closeReason) return Promise.resolve(transport.closeReason);
  return once(transport, 'close').then(([reason]) => reason as CloseReason);
}

/** A request that echo.mjs answers by writing `text` (base64 on the wire) to its stdout as is. */
export const raw = (id: number, text: string | Buffer) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'raw',
  params: { base64: Buffer.from(text).toString('base64') },
});
