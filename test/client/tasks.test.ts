// The legacy tasks utility (2025-11-25, §f item 62) over the memory transport: task-augmented
// tools/call only where the server declares tasks.requests.tools.call and the tool's
// execution.taskSupport allows it, always for `required` tools; tasks/get, tasks/result,
// tasks/list, tasks/cancel and notifications/tasks/status; the shapes of the 2025-11-25 schema.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AbortError, CapabilityError, Client, type Task } from '../../src/index.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { type MemoryServer, memoryServers, RpcError } from '../helpers/memory-server.js';
import { waitFor } from '../helpers/wait.js';

const TASKS = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
const OBJECT = { type: 'object' };

const TOOLS = [
  { name: 'plain', inputSchema: OBJECT },
  { name: 'forbidden', inputSchema: OBJECT, execution: { taskSupport: 'forbidden' } },
  { name: 'optional', inputSchema: OBJECT, execution: { taskSupport: 'optional' } },
  {
    name: 'required',
    inputSchema: OBJECT,
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execution: { taskSupport: 'required' },
  },
];

/**
 * A legacy server with tasks: a task-augmented tools/call creates a `working` task that completes
 * after `finishAfter` ms (a notifications/tasks/status for each change); tasks/result waits for
 * the terminal state, as the 2025-11-25 utility says; tasks/list pages one task at a time.
 */
function taskServer(options: { capabilities?: JsonObject; finishAfter?: number; result?: unknown } = {}) {
  const tasks = new Map<string, Task>();
  const waiting = new Map<string, Array<(task: Task) => void>>();
  let next = 0;
  const finishAfter = options.finishAfter ?? 20;
  const update = (server: MemoryServer, task: Task, status: Task['status'], message?: string) => {
    Object.assign(task, { status, lastUpdatedAt: new Date().toISOString(), statusMessage: message });
    server.notify('notifications/tasks/status', { ...task } as unknown as JsonObject);
    if (status !== 'working') for (const resolve of waiting.get(task.taskId) ?? []) resolve(task);
  };
  const found = (params: JsonObject) => {
    const task = tasks.get(params.taskId as string);
    if (!task) throw new RpcError(-32602, `unknown task ${String(params.taskId)}`);
    return task;
  };
  const { spec, servers } = memoryServers({
    era: 'legacy',
    capabilities: options.capabilities ?? { tools: {}, tasks: TASKS },
    handlers: {
      'tools/list': () => ({ tools: TOOLS }),
      'tools/call': (params, _request, server) => {
        if (params.task === undefined) {
          if (params.name === 'required') throw new RpcError(-32601, 'required needs a task');
          return { content: [{ type: 'text', text: `plain ${String(params.name)}` }] };
        }
        const now = new Date().toISOString();
        const task: Task = {
          taskId: `task-${++next}`,
          status: 'working',
          createdAt: now,
          lastUpdatedAt: now,
          ttl: ((params.task as { ttl?: number }).ttl ?? null) as number | null,
          pollInterval: 10,
        };
        tasks.set(task.taskId, task);
        if (Number.isFinite(finishAfter))
          setTimeout(() => task.status === 'working' && update(server, task, 'completed'), finishAfter);
        return { task };
      },
      'tasks/get': (params) => ({ ...found(params) }),
      'tasks/result': (params, request, server) => {
        const task = found(params);
        const answer = () =>
          server.answer(
            request.id,
            options.result ?? {
              content: [{ type: 'text', text: `done ${task.taskId}` }],
              structuredContent: { n: 1 },
              _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
            },
          );
        if (task.status !== 'working') return answer();
        waiting.set(task.taskId, [...(waiting.get(task.taskId) ?? []), answer]);
        return undefined;
      },
      'tasks/list': (params) => {
        const all = [...tasks.values()];
        const index = params.cursor === undefined ? 0 : Number(params.cursor);
        return {
          tasks: all.slice(index, index + 1),
          ...(index + 1 < all.length ? { nextCursor: String(index + 1) } : {}),
        };
      },
      'tasks/cancel': (params, _request, server) => {
        const task = found(params);
        update(server, task, 'cancelled', 'cancelled by the client');
        return { ...task };
      },
    },
  });
  return { spec, servers, tasks };
}

const calls = (server: MemoryServer) => server.requests('tools/call').map((request) => request.params!);

describe('item 62: task-augmented tools/call (legacy)', () => {
  test('a required tool is always called as a task: listed first, tools/call with task, then tasks/result', async () => {
    const { spec, servers } = taskServer();
    await using client = new Client({ name: 'tasks', transport: spec });
    const statuses: string[] = [];
    client.on('taskStatus', (task) => statuses.push(`${task.taskId} ${task.status}`));
    await client.connect();
    const result = await client.callTool({ name: 'required', arguments: { x: 1 } });
    assert.deepEqual(result.structuredContent, { n: 1 });
    const server = servers[0]!;
    assert.equal(server.requests('tools/list').length, 1, 'the tools were listed to read taskSupport');
    assert.deepEqual(calls(server), [{ name: 'required', arguments: { x: 1 }, task: {} }]);
    assert.deepEqual(
      server.requests('tasks/result').map((request) => request.params),
      [{ taskId: 'task-1' }],
    );
    await waitFor(() => statuses.length === 1, 'the status notification');
    assert.deepEqual(statuses, ['task-1 completed']);
    // Tools without taskSupport, or forbidden, or optional, are called as they are.
    for (const name of ['plain', 'forbidden', 'optional']) await client.callTool({ name });
    assert.deepEqual(
      calls(server)
        .slice(1)
        .map((params) => [params.name, 'task' in params]),
      [
        ['plain', false],
        ['forbidden', false],
        ['optional', false],
      ],
    );
  });

  test('startToolTask: an optional tool with ttl; getTask, listTasks (all pages), getTaskResult, cancelTask', async () => {
    const { spec, servers } = taskServer({ finishAfter: Number.POSITIVE_INFINITY });
    await using client = new Client({ name: 'tasks', transport: spec });
    await client.connect();
    const first = await client.startToolTask({ name: 'optional', arguments: { a: 1 }, ttl: 60_000 });
    assert.equal(first.status, 'working');
    assert.equal(first.ttl, 60_000);
    assert.deepEqual(calls(servers[0]!).at(-1), {
      name: 'optional',
      arguments: { a: 1 },
      task: { ttl: 60_000 },
    });
    const second = await client.startToolTask({ name: 'required' });
    assert.equal((await client.getTask(first.taskId)).status, 'working');
    const { tasks } = await client.listTasks();
    assert.deepEqual(
      tasks.map((task) => task.taskId),
      [first.taskId, second.taskId],
    );
    assert.equal(servers[0]!.requests('tasks/list').length, 2, 'two pages');
    const cancelled = await client.cancelTask(first.taskId);
    assert.equal(cancelled.status, 'cancelled');
    const result = await client.getTaskResult(first.taskId);
    assert.deepEqual(result.structuredContent, { n: 1 });
  });

  test('the result of a task started here is checked against its tool outputSchema', async () => {
    const { spec } = taskServer({ result: { content: [], structuredContent: { n: 'not a number' } } });
    await using client = new Client({ name: 'tasks', transport: spec });
    await client.connect();
    await assert.rejects(client.callTool({ name: 'required' }), /does not match its outputSchema/);
  });

  test('never augmented: forbidden or undeclared tools, a server without tasks.requests.tools.call', async () => {
    const { spec, servers } = taskServer();
    await using client = new Client({ name: 'tasks', transport: spec });
    await client.connect();
    for (const name of ['plain', 'forbidden']) {
      await assert.rejects(
        client.startToolTask({ name }),
        (error: unknown) =>
          error instanceof CapabilityError && /must not be called as a task/.test(error.message),
      );
    }
    assert.deepEqual(calls(servers[0]!), [], 'nothing was sent');

    const bare = taskServer({ capabilities: { tools: {}, tasks: { list: {} } } });
    await using other = new Client({ name: 'bare', transport: bare.spec });
    await other.connect();
    await other.listTools();
    // The server does not take task-augmented tool calls: even `required` goes plain (and fails).
    await assert.rejects(other.callTool({ name: 'required' }), { code: -32601 });
    assert.deepEqual(calls(bare.servers[0]!), [{ name: 'required' }]);
    await assert.rejects(
      other.startToolTask({ name: 'optional' }),
      (error: unknown) =>
        error instanceof CapabilityError && /tasks\.requests\.tools\.call/.test(error.message),
    );
    await assert.rejects(other.cancelTask('t'), /does not declare tasks\.cancel/);
  });

  test('tasks/* need the capabilities (legacy), or the tasks extension (modern)', async () => {
    const none = taskServer({ capabilities: { tools: {} } });
    await using legacy = new Client({ name: 'none', transport: none.spec });
    await legacy.connect();
    await assert.rejects(legacy.getTask('t'), (error: unknown) => error instanceof CapabilityError);
    await assert.rejects(legacy.listTasks(), /does not declare the tasks capability/);
    assert.equal(none.servers[0]!.requests('tasks/get').length, 0);

    const modern = memoryServers({ era: 'modern', capabilities: { tools: {} } });
    await using client = new Client({ name: 'modern', transport: modern.spec });
    await client.connect();
    await assert.rejects(
      client.getTaskResult('t'),
      (error: unknown) =>
        error instanceof CapabilityError &&
        /does not declare the io\.modelcontextprotocol\/tasks extension/.test(error.message),
    );
    assert.equal(modern.servers[0]!.requests('tasks/get').length, 0);
  });

  test('giving up on a required tool while its task runs cancels the task with tasks/cancel', async () => {
    const { spec, servers, tasks } = taskServer({ finishAfter: Number.POSITIVE_INFINITY });
    await using client = new Client({ name: 'tasks', transport: spec });
    await client.connect();
    const controller = new AbortController();
    const call = client.callTool({ name: 'required' }, { signal: controller.signal });
    await waitFor(() => servers[0]!.requests('tasks/result').length === 1, 'tasks/result sent');
    controller.abort();
    await assert.rejects(call, AbortError);
    await waitFor(() => servers[0]!.requests('tasks/cancel').length === 1, 'tasks/cancel');
    assert.deepEqual(servers[0]!.requests('tasks/cancel')[0]!.params, { taskId: 'task-1' });
    assert.equal(tasks.get('task-1')!.status, 'cancelled');
  });
});
