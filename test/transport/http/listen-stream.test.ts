// The modern subscriptions/listen stream over HTTP: a long-lived SSE answer to its own POST, on a
// real server on loopback. Notifications on it arrive (only those tagged with its id are changes);
// a new filter opens a new stream and then closes the old one; removing the last listener closes
// it; a server that ends it (no response, or a result) is reported and the next subscription opens
// a new one. Cancelling is closing the stream: no notifications/cancelled is ever POSTed.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, describe, test } from 'node:test';
import { Client, type ClientWarning } from '../../../src/index.js';
import { DISCOVER_RESULT, plainServer, result, type Seen } from '../../helpers/http.js';
import { waitFor } from '../../helpers/wait.js';

const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } };

interface Listen {
  readonly id: string;
  readonly filter: Record<string, unknown>;
  readonly res: ServerResponse;
  closed: boolean;
}

/** A modern server whose subscriptions/listen answers are event streams it keeps open. */
async function listenServer() {
  const listens: Listen[] = [];
  const server = await plainServer((request, res) => {
    const method = request.message?.method;
    if (method === 'server/discover') {
      return result(res, request, { ...DISCOVER_RESULT, capabilities: CAPABILITIES });
    }
    if (method === 'subscriptions/listen') {
      const id = String(request.message?.id);
      const filter = (request.message?.params?.notifications ?? {}) as Record<string, unknown>;
      const listen: Listen = { id, filter, res, closed: false };
      listens.push(listen);
      res.on('close', () => {
        listen.closed = true;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': opened\n\n');
      event(res, 'notifications/subscriptions/acknowledged', {
        _meta: { [SUB_ID]: id },
        notifications: filter,
      });
      return;
    }
    if (method === 'tools/call') {
      return result(res, request, { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] });
    }
    return result(res, request, { resultType: 'complete' });
  });
  after(() => server.close());
  const open = () => listens.filter((l) => !l.closed);
  return { server, listens, open };
}

function event(res: ServerResponse, method: string, params: Record<string, unknown>): void {
  res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`);
}

function client(url: string) {
  return new Client({
    name: 'listen',
    transport: { type: 'http', url },
    reconnect: { maxReconnects: 0 },
  });
}

const posted = (seen: Seen[], method: string) => seen.filter((s) => s.message?.method === method);

describe('subscriptions/listen over HTTP', () => {
  test('one POST opens the stream; its tagged notifications arrive, other requests go on beside it', async () => {
    const { server, listens, open } = await listenServer();
    const c = client(server.url);
    await c.connect();
    let changes = 0;
    c.on('toolsListChanged', () => changes++);
    await waitFor(() => open().length === 1, 'the listen stream');
    const [request] = posted(server.seen, 'subscriptions/listen');
    assert.equal(request!.headers['mcp-method'], 'subscriptions/listen');
    assert.equal(request!.headers.accept, 'application/json, text/event-stream');
    assert.equal(request!.headers['mcp-protocol-version'], '2026-07-28');
    assert.deepEqual(listens[0]!.filter, { toolsListChanged: true });

    const res = listens[0]!.res;
    res.write(': keep-alive\n\n');
    event(res, 'notifications/tools/list_changed', {}); // untagged: not this stream's
    event(res, 'notifications/tools/list_changed', { _meta: { [SUB_ID]: 'listen-999' } });
    event(res, 'notifications/tools/list_changed', { _meta: { [SUB_ID]: listens[0]!.id } });
    event(res, 'notifications/tools/list_changed', { _meta: { [SUB_ID]: listens[0]!.id } });
    await waitFor(() => changes === 2, 'the two tagged notifications');
    // The stream is long-lived and does not hold other requests back.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => c.callTool({ name: 'x', arguments: {} })),
    );
    assert.equal(answers.length, 8);
    assert.equal(open().length, 1, 'still open');
    await c.close();
    await waitFor(() => open().length === 0, 'close() to close the stream');
    assert.equal(posted(server.seen, 'notifications/cancelled').length, 0);
  });

  test('a new filter opens the new stream first, then closes the old one; the last listener closes it', async () => {
    const { server, listens, open } = await listenServer();
    const c = client(server.url);
    await c.connect();
    const onTools = () => {};
    c.on('toolsListChanged', onTools);
    await waitFor(() => open().length === 1, 'the first stream');
    const updated: string[] = [];
    c.on('resourceUpdated', ({ uri }) => updated.push(uri));
    await c.subscribeResource('file:///a');
    assert.equal(listens.length, 2);
    assert.deepEqual(listens[1]!.filter, { toolsListChanged: true, resourceSubscriptions: ['file:///a'] });
    await waitFor(() => listens[0]!.closed, 'the old stream to be closed');
    assert.ok(!listens[1]!.closed);
    event(listens[1]!.res, 'notifications/resources/updated', {
      uri: 'file:///a',
      _meta: { [SUB_ID]: listens[1]!.id },
    });
    await waitFor(() => updated.length === 1, 'the update on the new stream');
    assert.deepEqual(updated, ['file:///a']);

    await c.unsubscribeResource('file:///a');
    c.off('toolsListChanged', onTools);
    await waitFor(() => open().length === 0, 'every stream closed once nobody listens');
    assert.equal(posted(server.seen, 'notifications/cancelled').length, 0, 'closing is the cancellation');
    await c.close();
  });

  for (const [what, end] of [
    ['ends the stream without a response', (listen: Listen) => listen.res.end()],
    [
      'answers the listen with a result',
      (listen: Listen) => {
        listen.res.end(
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: listen.id, result: { resultType: 'complete' } })}\n\n`,
        );
      },
    ],
    ['resets the connection', (listen: Listen) => listen.res.socket?.destroy()],
  ] as const) {
    test(`a server that ${what}: a listen_failed warning, and the next subscription opens a new stream`, async () => {
      const { server, listens, open } = await listenServer();
      const c = client(server.url);
      await c.connect();
      const warnings: ClientWarning[] = [];
      c.on('warning', (warning) => warnings.push(warning));
      c.on('toolsListChanged', () => {});
      await waitFor(() => open().length === 1, 'the stream');
      end(listens[0]!);
      await waitFor(() => warnings.some((w) => w.type === 'listen_failed'), 'the listen_failed warning');
      assert.equal(listens.length, 1, 'the ended stream is not re-opened on its own');
      await c.subscribeResource('file:///b');
      assert.equal(listens.length, 2);
      assert.deepEqual(listens[1]!.filter, { toolsListChanged: true, resourceSubscriptions: ['file:///b'] });
      assert.equal(c.state, 'ready', 'a failed stream does not end the connection');
      await c.close();
      await waitFor(() => open().length === 0, 'close() to close the new stream');
      assert.equal(posted(server.seen, 'notifications/cancelled').length, 0);
    });
  }
});
