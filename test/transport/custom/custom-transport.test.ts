// A transport of the user's own ({ type: 'custom', create }) and the exported in-memory pair,
// under a real Client: connect, calls, ping, restarts, and the checks on what a factory returns.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Client, ConfigError, InMemoryTransport, type Transport, UsageError } from '../../../src/index.js';
import type { JsonRpcMessage, JsonRpcRequest } from '../../../src/jsonrpc/messages.js';

/** A small MCP server of either era on the server end of a pair; records what it received. */
function serve(end: InMemoryTransport, era: 'legacy' | 'modern', received: JsonRpcMessage[]): void {
  const answer = (request: JsonRpcRequest, result: unknown) =>
    end.send({ jsonrpc: '2.0', id: request.id, result } as JsonRpcMessage);
  end.on('message', (message) => {
    received.push(message);
    if (!('method' in message) || !('id' in message)) return;
    const request = message as JsonRpcRequest;
    switch (request.method) {
      case 'server/discover':
        if (era === 'legacy') {
          end.send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
          return;
        }
        return answer(request, {
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'memory', version: '1' } },
        });
      case 'initialize':
        return answer(request, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'memory', version: '1' },
        });
      case 'ping':
        return answer(request, {});
      case 'tools/list':
        return answer(request, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
      case 'tools/call':
        return answer(request, {
          content: [{ type: 'text', text: String((request.params?.arguments as { text?: unknown })?.text) }],
        });
    }
  });
  void end.start();
}

function memoryClient(era: 'legacy' | 'modern') {
  const servers: { end: InMemoryTransport; clientEnd: InMemoryTransport; received: JsonRpcMessage[] }[] = [];
  const client = new Client({
    name: `memory-${era}`,
    reconnect: { initialDelay: 10, maxDelay: 10 },
    transport: {
      type: 'custom',
      create: () => {
        const [clientEnd, serverEnd] = InMemoryTransport.pair();
        const received: JsonRpcMessage[] = [];
        serve(serverEnd, era, received);
        servers.push({ end: serverEnd, clientEnd, received });
        return clientEnd;
      },
    },
  });
  return { client, servers };
}

for (const era of ['legacy', 'modern'] as const) {
  test(`${era}: a Client over an in-memory pair connects, lists, calls and pings`, async () => {
    const { client, servers } = memoryClient(era);
    await client.connect();
    assert.equal(client.era, era);
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['echo'],
    );
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
    const before = servers[0]!.received.length;
    const ms = await client.ping();
    assert.ok(typeof ms === 'number' && ms >= 0);
    const sent = servers[0]!.received.slice(before).map((message) => (message as JsonRpcRequest).method);
    assert.deepEqual(sent, [era === 'legacy' ? 'ping' : 'server/discover']);
    await client.close();
    assert.equal(servers[0]!.end.closeReason?.type, 'ended', 'the server end learns the client went away');
  });
}

test('the server end closing is a lost connection: the client gets a new pair from create and goes on', async () => {
  const { client, servers } = memoryClient('legacy');
  await client.connect();
  const disconnected = once(client, 'disconnected');
  const ready = once(client, 'ready');
  await servers[0]!.end.close();
  const [reason] = await disconnected;
  assert.deepEqual(reason, { type: 'ended' });
  await ready;
  assert.equal(servers.length, 2);
  assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'again' } })).content, [
    { type: 'text', text: 'again' },
  ]);
  await client.close();
});

test('messages that are not JSON-RPC from a custom transport are dropped; the client goes on', async () => {
  const { client, servers } = memoryClient('legacy');
  await client.connect();
  // What a user's transport might emit by mistake, straight from its 'message' event.
  const { clientEnd } = servers[0]!;
  for (const junk of [null, 42, 'text', [], { jsonrpc: '1.0', id: 1, result: {} }, { id: 99, result: {} }]) {
    clientEnd.emit('message', junk as unknown as JsonRpcMessage);
  }
  assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'still' } })).content, [
    { type: 'text', text: 'still' },
  ]);
  await client.close();
});

test('a factory that returns what is not a Transport: connect rejects with a UsageError naming what is missing, once', async () => {
  let calls = 0;
  const client = new Client({
    name: 'broken',
    transport: {
      type: 'custom',
      create: () => {
        calls++;
        return { start() {} } as unknown as Transport;
      },
    },
  });
  await assert.rejects(client.connect(), (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /must return a Transport .*lacks send, close, on/);
    return true;
  });
  assert.equal(calls, 1, 'not retried: a broken factory does not heal');
  await client.close();
});

test('a factory that returns the same transport again: the restart fails for good, saying to return a new one', async () => {
  const [clientEnd, serverEnd] = InMemoryTransport.pair();
  serve(serverEnd, 'legacy', []);
  const client = new Client({
    name: 'reused',
    reconnect: { initialDelay: 10, maxDelay: 10 },
    transport: { type: 'custom', create: () => clientEnd },
  });
  await client.connect();
  const closed = once(client, 'closed');
  await serverEnd.close();
  const [reason] = await closed;
  assert.equal(client.state, 'closed');
  // The close reason is the refused attempt's, not the lost connection before it.
  assert.equal(reason?.type, 'connect_failed');
  assert.match(
    String((reason as { error?: Error }).error?.message),
    /returned a transport it returned before/,
  );
  await assert.rejects(client.listTools(), (error: Error) => {
    assert.match(error.message, /closed/);
    assert.match(
      String((error.cause as Error)?.message),
      /returned a transport it returned before.*return a new one/,
    );
    return true;
  });
});

test('a custom spec is checked at construction: create must be a function, no other keys', () => {
  assert.throws(
    () => new Client({ name: 'x', transport: { type: 'custom', create: 'not a function' } as never }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.key === 'transport.create' &&
      /must be a function that returns a new Transport/.test(error.message),
  );
  assert.throws(
    () =>
      new Client({
        name: 'x',
        transport: { type: 'custom', create: () => InMemoryTransport.pair()[0], url: 'x' } as never,
      }),
    (error: unknown) => error instanceof ConfigError && error.key === 'transport.url',
  );
});

test('InMemoryTransport: send needs start, a message that cannot be serialised throws to the sender, close ends both', async () => {
  const [a, b] = InMemoryTransport.pair();
  assert.throws(() => a.send({ jsonrpc: '2.0', method: 'x' }), UsageError);
  await a.start();
  await b.start();
  assert.throws(() => a.send({ jsonrpc: '2.0', method: 'x', params: { n: 1n } } as never), TypeError);
  const got = once(b, 'message');
  a.send({ jsonrpc: '2.0', method: 'hello', params: { text: 'line\u2028break' } });
  assert.deepEqual((await got)[0], { jsonrpc: '2.0', method: 'hello', params: { text: 'line\u2028break' } });
  const bClosed = once(b, 'close');
  await a.close();
  assert.deepEqual(a.closeReason, { type: 'closed' });
  assert.deepEqual((await bClosed)[0], { type: 'ended' });
  assert.throws(() => b.send({ jsonrpc: '2.0', method: 'x' }), /ended|went away/);
});
