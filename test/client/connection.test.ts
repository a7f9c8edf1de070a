import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '../../src/client/connection.js';
import type { Progress } from '../../src/client/progress.js';
import { AbortError, ConnectionClosedError, McpError, RequestTimeoutError } from '../../src/errors.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { validateMessage } from '../helpers/schema.js';

guardProcesses();

/** A connection to the scriptable fixture (legacy era, no handshake needed for raw calls). */
async function connect(extraArgs: string[] = [], requestTimeout = 10_000) {
  const record = stdinRecord();
  const transport = new StdioTransport(
    nodeServer('mcp.mjs', ['--era', 'legacy', '--record', record.file, ...extraArgs], {
      stdinGrace: 300,
      termGrace: 300,
      stderr: 'discard',
    }),
  );
  const connection = new Connection(transport, { name: 'fixture', requestTimeout });
  await transport.start();
  return { connection, transport, record };
}

async function shut(transport: StdioTransport) {
  await transport.close();
  await transport.exited;
}

const slow = (args: Record<string, unknown>) => ({ name: 'slow', arguments: args });

test('answers are matched by id, whatever order they come back in', async () => {
  const { connection, transport } = await connect();
  const [late, early] = await Promise.all([
    connection.request('tools/call', slow({ steps: 2, interval: 80 })),
    connection.request('tools/call', { name: 'echo', arguments: { n: 1 } }),
  ]);
  assert.deepEqual(early, { content: [{ type: 'text', text: '{"n":1}' }] });
  assert.deepEqual(late, { content: [{ type: 'text', text: 'done' }] });
  await assert.rejects(
    connection.request('no/such/method'),
    (error) => error instanceof McpError && error.code === -32601,
  );
  await shut(transport);
});

test('a timeout rejects with RequestTimeoutError and writes notifications/cancelled', async () => {
  const { connection, transport, record } = await connect();
  const started = performance.now();
  await assert.rejects(
    connection.request('tools/call', slow({ steps: 20, interval: 50 }), { timeout: 150 }),
    (error) => error instanceof RequestTimeoutError && error.method === 'tools/call' && error.timeout === 150,
  );
  assert.ok(performance.now() - started >= 140);
  const request = await record.waitFor((message) => message.method === 'tools/call');
  const cancel = await record.waitFor((message) => message.method === 'notifications/cancelled');
  assert.deepEqual(cancel, {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: request.id, reason: 'timeout' },
  });
  validateMessage(cancel, 'legacy', 'CancelledNotification');
  validateMessage(cancel, 'modern', 'CancelledNotification');
  await shut(transport);
});

test('an already-aborted signal rejects at once and sends nothing', async () => {
  const { connection, transport, record } = await connect();
  const controller = new AbortController();
  controller.abort(new Error('user gave up'));
  await assert.rejects(
    connection.request('tools/call', { name: 'echo' }, { signal: controller.signal }),
    (error) =>
      error instanceof AbortError &&
      error.name === 'AbortError' &&
      (error.cause as Error).message === 'user gave up',
  );
  await connection.request('ping');
  assert.deepEqual(
    record.read().map((message) => message.method),
    ['ping'],
  );
  await shut(transport);
});

test('an abort after sending rejects with AbortError (not a timeout) and cancels on the wire', async () => {
  const { connection, transport, record } = await connect();
  const controller = new AbortController();
  const pending = connection.request('tools/call', slow({ steps: 20 }), { signal: controller.signal });
  await record.waitFor((message) => message.method === 'tools/call');
  controller.abort('stop');
  await assert.rejects(
    pending,
    (error) => error instanceof AbortError && !(error instanceof RequestTimeoutError),
  );
  const cancel = await record.waitFor((message) => message.method === 'notifications/cancelled');
  assert.deepEqual(cancel.params, { requestId: 1, reason: 'aborted' });
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  await shut(transport);
});

test('progress arrives in order, and resetTimeoutOnProgress keeps a slow request alive', async () => {
  const { connection, transport, record } = await connect();
  await connection.request('ping'); // the server is up: only the steps count now
  const seen: Progress[] = [];
  const result = await connection.request('tools/call', slow({ steps: 6, interval: 100 }), {
    timeout: 400,
    resetTimeoutOnProgress: true,
    onProgress: (progress) => seen.push(progress),
  });
  assert.deepEqual(result, { content: [{ type: 'text', text: 'done' }] });
  assert.deepEqual(
    seen.map((progress) => progress.progress),
    [1, 2, 3, 4, 5, 6],
  );
  assert.deepEqual(seen[0], { progress: 1, total: 6, message: 'step 1' });
  const sent = record.read().find((message) => message.method === 'tools/call')!;
  assert.equal((sent.params as { _meta: { progressToken: unknown } })._meta.progressToken, sent.id);
  validateMessage(sent, 'legacy', 'CallToolRequest');
  await shut(transport);
});

test('resetTimeoutOnProgress alone asks for progress (a token is sent) and is kept alive by it', async () => {
  const { connection, transport, record } = await connect();
  await connection.request('ping');
  // Eight steps of 150 ms, 1,200 ms in all, against a 600 ms timeout reset by each step.
  const result = await connection.request('tools/call', slow({ steps: 8, interval: 150 }), {
    timeout: 600,
    resetTimeoutOnProgress: true,
  });
  assert.deepEqual(result, { content: [{ type: 'text', text: 'done' }] });
  const sent = record.read().find((message) => message.method === 'tools/call')!;
  assert.equal((sent.params as { _meta: { progressToken: unknown } })._meta.progressToken, sent.id);
  await shut(transport);
});

test('without resetTimeoutOnProgress, progress does not extend the timeout', async () => {
  const { connection, transport } = await connect();
  await connection.request('ping');
  const seen: number[] = [];
  await assert.rejects(
    connection.request('tools/call', slow({ steps: 6, interval: 100 }), {
      timeout: 400,
      onProgress: (progress) => seen.push(progress.progress),
    }),
    RequestTimeoutError,
  );
  assert.ok(seen.length >= 1 && seen.length <= 4, `got ${seen.length} progress notifications`);
  await shut(transport);
});

test('maxTotalTimeout is a hard cap even when no progress arrives, and cancels on the wire', async () => {
  const { connection, transport, record } = await connect();
  const started = performance.now();
  await assert.rejects(
    connection.request('tools/call', slow({ steps: 1, interval: 5000 }), {
      timeout: 60_000,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 300,
      onProgress: () => {},
    }),
    (error) =>
      error instanceof RequestTimeoutError && error.timeout === 300 && /maxTotalTimeout/.test(error.message),
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 290 && elapsed < 2000, `rejected after ${elapsed} ms`);
  const cancel = await record.waitFor((message) => message.method === 'notifications/cancelled');
  assert.deepEqual(cancel.params, { requestId: 1, reason: 'maxTotalTimeout expired' });
  await shut(transport);
});

test('a late answer to a timed-out request is dropped without an exception', async () => {
  const { connection, transport } = await connect();
  await assert.rejects(
    connection.request('tools/call', slow({ steps: 1, interval: 200 }), { timeout: 50, signal: undefined }),
    RequestTimeoutError,
  );
  // The fixture ignores the cancellation of an already-running step and answers anyway.
  await sleep(300);
  assert.deepEqual(await connection.request('ping'), {});
  await shut(transport);
});

test('a server that exits mid-request: every in-flight request rejects at once with the exit status', async () => {
  const { connection, transport } = await connect();
  const waiting = connection.request('tools/call', slow({ steps: 50 }));
  const crashing = connection.request('tools/call', { name: 'crash', arguments: { code: 9 } });
  for (const pending of [waiting, crashing]) {
    await assert.rejects(
      pending,
      (error) =>
        error instanceof ConnectionClosedError &&
        error.reason.type === 'exit_status' &&
        error.reason.status === 9 &&
        /exited with status 9/.test(error.message),
    );
  }
  assert.equal(connection.pendingCount, 0);
  await assert.rejects(connection.request('ping'), ConnectionClosedError);
  await transport.exited;
});

test('10,000 requests sharing one signal leave no listener, timer or pending entry behind', async () => {
  const { connection, transport } = await connect([], 60_000);
  const controller = new AbortController();
  for (let batch = 0; batch < 10; batch++) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        connection.request('tools/call', { name: 'echo', arguments: { i } }, { signal: controller.signal }),
      ),
    );
  }
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  assert.equal(connection.pendingCount, 0);
  await shut(transport);
});

test('a request after a settled one re-arms the kept timer: its own timeout counts, from its own start', async () => {
  const { connection, transport } = await connect();
  // Each answer takes about 200 ms against a 2,500 ms timeout, fifteen in a row: were a request to
  // inherit the first one's deadline, it would fire about 2,500 ms from the first one's start, mid-way
  // through the thirteenth. The margin per request (12x) survives a loaded machine.
  for (let i = 0; i < 15; i++) {
    assert.ok(await connection.request('tools/call', slow({ steps: 1, interval: 200 }), { timeout: 2500 }));
  }
  // A timer armed for a settled request that fires while no request waits times nothing.
  assert.ok(await connection.request('tools/call', slow({ steps: 1, interval: 10 }), { timeout: 500 }));
  await sleep(600);
  assert.ok(await connection.request('tools/call', slow({ steps: 1, interval: 100 }), { timeout: 2500 }));
  const started = Date.now();
  await assert.rejects(
    connection.request('tools/call', slow({ steps: 1, interval: 5000 }), { timeout: 300 }),
    (error) => error instanceof RequestTimeoutError && error.timeout === 300,
  );
  assert.ok(Date.now() - started >= 290, 'the timeout counted from the request');
  await shut(transport);
});

test('deadlines in any order: a shorter timeout set after a longer one fires first, the longer at its own time', async () => {
  const { connection, transport } = await connect();
  const started = Date.now();
  const settled: string[] = [];
  const long = connection
    .request('tools/call', slow({ steps: 1, interval: 5000 }), { timeout: 700 })
    .catch((error: RequestTimeoutError) => {
      settled.push(`long ${error.timeout}`);
      return Date.now() - started;
    });
  const short = connection
    .request('tools/call', slow({ steps: 1, interval: 5000 }), { timeout: 150 })
    .catch((error: RequestTimeoutError) => {
      settled.push(`short ${error.timeout}`);
      return Date.now() - started;
    });
  const [longAfter, shortAfter] = (await Promise.all([long, short])) as [number, number];
  assert.deepEqual(settled, ['short 150', 'long 700']);
  assert.ok(shortAfter >= 140 && shortAfter < 650, `the short one timed out after ${shortAfter} ms`);
  assert.ok(longAfter >= 690, `the long one timed out after ${longAfter} ms`);
  await shut(transport);
});

test('the timer kept after a request does not hold the event loop open', async () => {
  const { connection, transport } = await connect();
  const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
  const before = timers();
  await connection.request('ping', undefined, { timeout: 30_000 });
  assert.equal(timers(), before, 'no ref-ed timer left once the request settled');
  await shut(transport);
});
