// The Tasks extension over Streamable HTTP (SEP-2663): every request for a task carries its id
// in Mcp-Name, so that an intermediary routes it to the instance holding the task's state.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '../../../src/index.js';
import { DISCOVER_RESULT, plainServer, result } from '../../helpers/http.js';

const TASKS = 'io.modelcontextprotocol/tasks';

test('tasks/get and tasks/cancel carry the task id in Mcp-Name; the call carries the tool name', async () => {
  let polls = 0;
  const server = await plainServer((request, res) => {
    const message = request.message;
    const now = new Date().toISOString();
    const task = {
      taskId: 'task 7/é',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 10,
    };
    switch (message?.method) {
      case 'server/discover':
        return result(res, request, {
          ...DISCOVER_RESULT,
          capabilities: { tools: {}, extensions: { [TASKS]: {} } },
        });
      case 'tools/call':
        return result(res, request, { resultType: 'task', ...task, status: 'working' });
      case 'tasks/get':
        polls++;
        return result(res, request, { resultType: 'complete', ...task, status: 'working' });
      case 'tasks/cancel':
        return result(res, request, { resultType: 'complete', ...task, status: 'cancelled' });
      default:
        res.writeHead(202).end();
    }
  });
  after(() => server.close());
  const client = new Client({ name: 'tasks', transport: { type: 'http', url: server.url } });
  await client.connect();
  const stop = new AbortController();
  const call = client.callTool({ name: 'slow', arguments: {} }, { signal: stop.signal });
  while (polls < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  stop.abort();
  await assert.rejects(call, (error) => (error as Error).name === 'AbortError');
  for (
    let wait = 0;
    wait < 500 && !server.seen.some((seen) => seen.message?.method === 'tasks/cancel');
    wait++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await client.close();
  const named = (method: string) =>
    server.seen.filter((seen) => seen.message?.method === method).map((seen) => seen.headers['mcp-name']);
  assert.deepEqual(named('tools/call'), ['slow']);
  const encoded = `=?base64?${Buffer.from('task 7/é').toString('base64')}?=`;
  assert.ok(named('tasks/get').length >= 2);
  assert.ok(
    named('tasks/get').every((name) => name === encoded),
    String(named('tasks/get')),
  );
  assert.deepEqual(named('tasks/cancel'), [encoded]);
});
