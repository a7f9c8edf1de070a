// Legacy and shared utilities of §f over the memory transport: liveness pings (item 61),
// cancellation reasons logged both ways and server cancellations of handler runs (70, 71), the
// default overall cap of a timeout that restarts on progress (75).
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { describe, test } from 'node:test';
import { DEFAULT_TOTAL_TIMEOUT_FACTOR } from '../../src/client/connection.js';
import type { ClientWarning } from '../../src/client/warnings.js';
import { AbortError, Client, type CloseReason, RequestTimeoutError } from '../../src/index.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { memoryServers } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

const FAST_RESTART = { initialDelay: 1, maxDelay: 1, jitter: 0 };

/** Everything published on the cancellation channel while `run` runs. */
async function cancellationsDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onMessage = (message: unknown) => seen.push(message);
  diagnostics.subscribe('conduit-mcp:client:cancellation', onMessage);
  try {
    await run();
  } finally {
    diagnostics.unsubscribe('conduit-mcp:client:cancellation', onMessage);
  }
  return seen;
}

describe('item 61: pingInterval (legacy)', () => {
  test('pings go out one at a time at the interval; none without the option', async () => {
    const { spec, servers } = memoryServers({ era: 'legacy', handlers: { ping: () => ({}) } });
    await using client = new Client({ name: 'ping', transport: spec, pingInterval: 30 });
    await client.connect();
    await waitFor(() => servers[0]!.requests('ping').length >= 3, 'three pings');
    assert.equal(client.state, 'ready');

    const quiet = memoryServers({ era: 'legacy', handlers: { ping: () => ({}) } });
    await using other = new Client({ name: 'quiet', transport: quiet.spec });
    await other.connect();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(quiet.servers[0]!.requests('ping').length, 0);
  });

  test('a server that stops answering pings is lost (ping_timeout), reported, and restarted', async () => {
    let answering = true;
    const { spec, servers } = memoryServers({
      era: 'legacy',
      handlers: { ping: () => (answering ? {} : undefined) },
    });
    await using client = new Client({
      name: 'ping',
      transport: spec,
      pingInterval: 40,
      reconnect: FAST_RESTART,
    });
    const warnings: ClientWarning[] = [];
    const disconnects: CloseReason[] = [];
    client.on('warning', (warning) => warnings.push(warning));
    client.on('disconnected', (reason) => disconnects.push(reason));
    await client.connect();
    await waitFor(() => servers[0]!.requests('ping').length >= 1, 'a first ping');
    answering = false;
    await waitFor(() => disconnects.length === 1, 'the disconnect');
    assert.deepEqual(disconnects[0], { type: 'ping_timeout', timeout: 40 });
    assert.equal(warnings[0]?.type, 'ping_failed');
    assert.match(warnings[0]!.message, /ping was not answered within 40 ms; the server is taken as lost/);
    assert.ok(warnings[0]!.error instanceof RequestTimeoutError);
    await waitFor(() => servers.length === 2 && client.state === 'ready', 'a new server process');
    assert.equal(servers[1]!.requests('initialize').length, 1);
  });

  test('a ping answered with an error keeps the connection (the server is alive); a warning says so', async () => {
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({ name: 'ping', transport: spec, pingInterval: 30 });
    const warnings: ClientWarning[] = [];
    client.on('warning', (warning) => warnings.push(warning));
    await client.connect();
    await waitFor(() => warnings.length >= 2, 'two failed pings');
    assert.equal(client.state, 'ready');
    assert.equal(servers.length, 1);
    assert.match(
      warnings[0]!.message,
      /ping failed \(.*Method not found: ping\); the server answered, so it stays connected/,
    );
  });

  test('pingInterval is checked at construction; a modern session never pings', async () => {
    assert.throws(
      () => new Client({ name: 'p', transport: memoryServers({ era: 'legacy' }).spec, pingInterval: 0 }),
      /pingInterval/,
    );
    const { spec, servers } = memoryServers({ era: 'modern' });
    await using client = new Client({ name: 'p', transport: spec, pingInterval: 20 });
    await client.connect();
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(servers[0]!.requests('ping').length, 0);
  });
});

describe('items 70 and 71: cancellations', () => {
  test('item 70: our cancellations are logged with their reason (sent): timeout and abort', async () => {
    const { spec } = memoryServers({ era: 'legacy', handlers: { 'tools/call': () => undefined } });
    await using client = new Client({ name: 'cancel', transport: spec });
    await client.connect();
    const seen = await cancellationsDuring(async () => {
      await assert.rejects(client.callTool({ name: 'slow' }, { timeout: 20 }), RequestTimeoutError);
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow' }, { signal: controller.signal });
      controller.abort();
      await assert.rejects(call, AbortError);
    });
    assert.deepEqual(
      seen.map((entry) => ({
        ...(entry as object),
        requestId: typeof (entry as { requestId: unknown }).requestId,
      })),
      [
        { server: 'cancel', direction: 'sent', requestId: 'number', reason: 'tools/call: timeout' },
        { server: 'cancel', direction: 'sent', requestId: 'number', reason: 'tools/call: aborted' },
      ],
    );
  });

  test('item 71: a server cancellation stops the handler run, frees it and sends no answer; invalid ones are ignored', async () => {
    let signal: AbortSignal | undefined;
    const { spec, servers } = memoryServers({ era: 'legacy' });
    await using client = new Client({
      name: 'cancel',
      transport: spec,
      handlers: {
        elicitation: (_params, context) => {
          signal = context.signal;
          return new Promise(() => {});
        },
      },
    });
    await client.connect();
    const server = servers[0]!;
    const seen = await cancellationsDuring(async () => {
      server.peer.send({
        jsonrpc: '2.0',
        id: 'e1',
        method: 'elicitation/create',
        params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
      } as JsonRpcMessage);
      await waitFor(() => signal !== undefined, 'the handler run');
      server.notify('notifications/cancelled', { requestId: 'unknown-id', reason: 'stale' });
      server.notify('notifications/cancelled', { requestId: 'e1', reason: 'the user left' });
      await waitFor(() => signal!.aborted, 'the handler signal aborted');
      // Cancelling the same run again is an invalid cancellation: ignored.
      server.notify('notifications/cancelled', { requestId: 'e1', reason: 'again' });
      await new Promise((resolve) => setTimeout(resolve, 30));
    });
    assert.match(String((signal!.reason as Error).message), /the server cancelled its request e1/);
    assert.equal(
      server.peer.received.filter((message) => 'id' in message && message.id === 'e1').length,
      0,
      'no answer to a cancelled request',
    );
    assert.deepEqual(seen, [
      {
        server: 'cancel',
        direction: 'received',
        requestId: 'unknown-id',
        reason: 'stale (ignored: not a request the client is answering)',
      },
      { server: 'cancel', direction: 'received', requestId: 'e1', reason: 'the user left' },
      {
        server: 'cancel',
        direction: 'received',
        requestId: 'e1',
        reason: 'again (ignored: not a request the client is answering)',
      },
    ]);
    // The run was freed: the client still answers the server.
    server.peer.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' } as JsonRpcMessage);
    await waitFor(
      () => server.peer.received.some((message) => 'id' in message && message.id === 'p1'),
      'the ping answer',
    );
  });
});

describe('item 75: an overall cap', () => {
  test('resetTimeoutOnProgress without maxTotalTimeout is capped at DEFAULT_TOTAL_TIMEOUT_FACTOR × timeout', async () => {
    // Generous against a loaded machine: a progress gap longer than `timeout` would end the
    // request by its own timeout instead of the overall cap this test is about.
    const timeout = 250;
    const { spec, servers } = memoryServers({
      era: 'legacy',
      handlers: {
        'tools/call': (params, _request, server) => {
          const token = (params._meta as { progressToken: number }).progressToken;
          let progress = 0;
          const timer = setInterval(() => {
            if (server.peer.closed) return clearInterval(timer);
            server.notify('notifications/progress', { progressToken: token, progress: ++progress });
          }, 10);
          setTimeout(() => clearInterval(timer), 10_000);
          return undefined;
        },
      },
    });
    await using client = new Client({ name: 'cap', transport: spec });
    await client.connect();
    const started = Date.now();
    let updates = 0;
    await assert.rejects(
      client.callTool(
        { name: 'endless' },
        { timeout, resetTimeoutOnProgress: true, onProgress: () => updates++ },
      ),
      (error: unknown) =>
        error instanceof RequestTimeoutError &&
        error.timeout === timeout * DEFAULT_TOTAL_TIMEOUT_FACTOR &&
        /maxTotalTimeout/.test(error.message),
    );
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= timeout * DEFAULT_TOTAL_TIMEOUT_FACTOR - 5, `capped after ${elapsed} ms`);
    assert.ok(
      updates > DEFAULT_TOTAL_TIMEOUT_FACTOR,
      `progress kept it alive past its timeout (${updates} updates)`,
    );
    await waitFor(
      () => servers[0]!.notifications('notifications/cancelled').length === 1,
      'the cancellation',
    );
  });
});
