// The tasks extension (SEP-2663, io.modelcontextprotocol/tasks) in the modern era, against a
// plain-Node fixture server over stdio: a tools/call answered with a task is followed to its end
// (tasks/get at the server's poll interval, inputs through tasks/update, tasks/cancel on abort or
// timeout); startToolTask hands the task over through the same API as legacy tasks; and the
// extensions the client uses are declared in its capabilities, where the era's schema has them.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import type { Task } from '../../src/client/tasks.js';
import {
  AbortError,
  CapabilityError,
  McpError,
  ProtocolError,
  RequestTimeoutError,
} from '../../src/errors.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { validateMessage } from '../helpers/schema.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;
const TASKS = 'io.modelcontextprotocol/tasks';
const SKILLS = 'io.modelcontextprotocol/skills';
type Message = Record<string, unknown> & { method?: string; params?: Record<string, unknown> };

function tasksClient(args: string[] = [], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'tasks',
    transport: { type: 'stdio', ...nodeServer('tasks-ext.mjs', ['--record', record.file, ...args], QUICK) },
    probeTimeout: 2000,
    ...extra,
  });
  clients.push(client);
  const requests = (method: string, taskId?: string) =>
    (record.read() as Message[]).filter(
      (message) => message.method === method && (taskId === undefined || message.params?.taskId === taskId),
    );
  const statuses: Array<[string, string]> = [];
  client.on('taskStatus', (task) => statuses.push([task.taskId, task.status]));
  return { client, record, requests, statuses };
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]!.text;

test('a tools/call answered with a task, unasked: callTool polls tasks/get and resolves with its result', async () => {
  const { client, requests, statuses } = tasksClient();
  await client.connect();
  assert.equal(client.era, 'modern');
  const result = await client.callTool({ name: 'slow', arguments: { ms: 200, text: 'finished' } });
  assert.equal(textOf(result), 'finished');
  const gets = requests('tasks/get', 'task-1');
  assert.ok(gets.length >= 1, 'polled tasks/get');
  for (const get of gets) validateMessage(get, 'modern', 'JSONRPCRequest');
  assert.deepEqual(statuses.at(0), ['task-1', 'working']);
  assert.deepEqual(statuses.at(-1), ['task-1', 'completed']);
  assert.equal(requests('tasks/cancel').length, 0, 'nothing cancelled');
});

test('the server poll interval is honoured: a long one polls rarely, a short one often', async () => {
  const { client, requests } = tasksClient();
  await client.connect();
  const started = Date.now();
  // Done after 1500 ms, polled every 3000 ms: the first poll finds it done.
  const rare = client.callTool({ name: 'slow', arguments: { ms: 1500, poll: 3000, text: 'rare' } });
  // Done after 1500 ms, polled every 50 ms: about 30 polls (load can only make them fewer).
  const often = client.callTool({ name: 'slow', arguments: { ms: 1500, poll: 50, text: 'often' } });
  assert.equal(textOf(await often), 'often');
  assert.equal(textOf(await rare), 'rare');
  assert.ok(Date.now() - started >= 2900, 'the rare task was polled only after its interval');
  assert.equal(requests('tasks/get', 'task-1').length, 1, 'one poll at 3000 ms, not one a second');
  const frequent = requests('tasks/get', 'task-2').length;
  assert.ok(frequent >= 5, `the 50 ms interval was used (${frequent} polls), not a slower default`);
  assert.ok(frequent <= 45, `no faster than the interval (${frequent} polls in 1500 ms)`);
});

test('startToolTask hands the task over: getTask, getTaskResult and taskStatus, as for legacy tasks', async () => {
  const { client, requests, statuses } = tasksClient();
  await client.connect();
  const task = await client.startToolTask({ name: 'slow', arguments: { ms: 300, text: 'handed' } });
  assert.equal(task.status, 'working');
  assert.equal(task.ttl, 60_000, 'ttl read from ttlMs');
  assert.equal(task.pollInterval, 50, 'pollInterval read from pollIntervalMs');
  assert.equal(task.resultType, undefined);
  const now = await client.getTask(task.taskId);
  assert.equal(now.taskId, task.taskId);
  assert.equal(textOf(await client.getTaskResult(task.taskId)), 'handed');
  assert.deepEqual(statuses.at(-1), [task.taskId, 'completed']);
  assert.equal(requests('tools/call').length, 1);
  assert.equal(requests('tools/call')[0]!.params!.task, undefined, 'the extension asks for no task');
});

test('startToolTask of a call the server answers at once: a completed task made by the client', async () => {
  const { client, requests } = tasksClient();
  await client.connect();
  const task = await client.startToolTask({ name: 'quick' });
  assert.match(task.taskId, /^local-/);
  assert.equal(task.status, 'completed');
  assert.equal((await client.getTask(task.taskId)).status, 'completed');
  assert.equal(textOf(await client.getTaskResult(task.taskId)), 'quick');
  assert.equal(requests('tasks/get').length, 0, 'nothing asked of the server about it');
});

test('a task that needs input: the elicitation handler answers once, through tasks/update', async () => {
  const asked: unknown[] = [];
  const { client, requests } = tasksClient([], {
    handlers: {
      elicitation: async (params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  await client.connect();
  const result = await client.callTool({ name: 'ask', arguments: { kind: 'elicitation' } });
  assert.equal(textOf(result), 'Hello, Ada');
  assert.equal(asked.length, 1, 'the same input request, shown again, is answered once');
  const updates = requests('tasks/update');
  assert.equal(updates.length, 1);
  assert.deepEqual(updates[0]!.params!.inputResponses, {
    'elicitation-1': { action: 'accept', content: { name: 'Ada' } },
  });
  assert.ok(requests('tasks/get').length >= 2, 'the input request was seen on more than one poll');
});

test('a task that needs sampling and roots: the same handlers as the input_required loop', async () => {
  const { client } = tasksClient([], {
    handlers: {
      sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }),
    },
    roots: [{ uri: 'file:///srv/a' }],
  });
  await client.connect();
  assert.equal(
    textOf(await client.callTool({ name: 'ask', arguments: { kind: 'sampling' } })),
    'The model said: hi',
  );
  assert.equal(
    textOf(await client.callTool({ name: 'ask', arguments: { kind: 'roots' } })),
    'Roots: file:///srv/a',
  );
});

test('a handed task that needs input: getTaskResult answers it through tasks/update', async () => {
  let asked = 0;
  const { client, requests } = tasksClient([], {
    handlers: {
      elicitation: async () => {
        asked++;
        return { action: 'accept', content: { name: 'Grace' } };
      },
    },
  });
  await client.connect();
  const task = await client.startToolTask({ name: 'ask', arguments: { kind: 'elicitation' } });
  assert.equal(task.status, 'input_required');
  assert.equal(textOf(await client.getTaskResult(task.taskId)), 'Hello, Grace');
  assert.equal(asked, 1);
  assert.equal(requests('tasks/update', task.taskId).length, 1);
});

test("a task's result is checked against the tool's outputSchema, as a direct answer is", async () => {
  const { client } = tasksClient();
  await client.connect();
  await client.listTools();
  assert.deepEqual((await client.callTool({ name: 'typed', arguments: { n: 1 } })).structuredContent, {
    n: 1,
  });
  await assert.rejects(
    client.callTool({ name: 'typed', arguments: { n: 'one' } }),
    (error) => error instanceof ProtocolError && /typed/.test(error.message),
  );
  const task = await client.startToolTask({ name: 'typed', arguments: { n: 'two' } });
  await assert.rejects(client.getTaskResult(task.taskId), ProtocolError);
});

test('a task whose input has no handler fails the call with a clear error, and is cancelled', async () => {
  const { client, record } = tasksClient();
  await client.connect();
  await assert.rejects(
    client.callTool({ name: 'ask', arguments: { kind: 'elicitation' } }, { timeout: 5000 }),
    /no handlers\.elicitation was given/,
  );
  await record.waitFor((message) => message.method === 'tasks/cancel');
});

test('aborting a call that became a task sends tasks/cancel', async () => {
  const { client, record } = tasksClient();
  await client.connect();
  const controller = new AbortController();
  const call = client.callTool({ name: 'forever' }, { signal: controller.signal });
  await record.waitFor((message) => message.method === 'tasks/get');
  controller.abort(new Error('the user left'));
  await assert.rejects(call, (error) => error instanceof AbortError && error.method === 'tools/call');
  const cancel = await record.waitFor((message) => message.method === 'tasks/cancel');
  assert.deepEqual((cancel.params as { taskId: string }).taskId, 'task-1');
});

test('close() cancels the tasks callTool follows before the transport ends, an abort just before it included; a task handed over goes on', async () => {
  const { client, record, requests } = tasksClient();
  await client.connect();
  const handed = await client.startToolTask({ name: 'forever' });
  const controller = new AbortController();
  const aborted = client.callTool({ name: 'forever' }, { signal: controller.signal }).catch((error) => error);
  const left = client.callTool({ name: 'forever' }).catch((error) => error);
  const polled = (taskId: string) => (message: Message) =>
    message.method === 'tasks/get' && message.params?.taskId === taskId;
  await record.waitFor(polled('task-2'));
  await record.waitFor(polled('task-3'));
  // The abort's own tasks/cancel would be sent a few microtasks later, after close() began.
  controller.abort(new Error('the user left'));
  await client.close();
  assert.equal(requests('tasks/cancel', 'task-2').length, 1, 'the aborted call: cancelled once');
  assert.equal(requests('tasks/cancel', 'task-3').length, 1, 'the call the close ended: cancelled');
  assert.equal(requests('tasks/cancel', handed.taskId).length, 0, 'the handed task is the caller’s');
  assert.ok((await aborted) instanceof AbortError, String(await aborted));
  assert.ok((await left) instanceof Error, String(await left));
});

test('a call that became a task and outlives its timeout: RequestTimeoutError and tasks/cancel', async () => {
  const { client, record } = tasksClient();
  await client.connect();
  const started = Date.now();
  await assert.rejects(
    client.callTool({ name: 'forever' }, { timeout: 400 }),
    (error) => error instanceof RequestTimeoutError && error.method === 'tools/call' && error.timeout === 400,
  );
  assert.ok(Date.now() - started < 4000, 'the timeout covers the whole call');
  await record.waitFor((message) => message.method === 'tasks/cancel');
  await assert.rejects(
    client.callTool({ name: 'forever' }, { timeout: 60_000, maxTotalTimeout: 400 }),
    (error) => error instanceof RequestTimeoutError && error.timeout === 400,
  );
  await record.waitFor(
    (message) =>
      message.method === 'tasks/cancel' && (message.params as { taskId: string }).taskId === 'task-2',
  );
});

test('a failed task rejects with its JSON-RPC error', async () => {
  const { client, requests, statuses } = tasksClient();
  await client.connect();
  await assert.rejects(
    client.callTool({ name: 'fail' }),
    (error) => error instanceof McpError && error.code === -32603 && /backend down/.test(error.message),
  );
  assert.deepEqual(statuses.at(-1), ['task-1', 'failed']);
  assert.equal(requests('tasks/cancel').length, 0, 'a task that ended is not cancelled');
});

test('cancelTask on a handed task: tasks/cancel, then the task as the server reports it', async () => {
  const { client, requests } = tasksClient();
  await client.connect();
  const task: Task = await client.startToolTask({ name: 'forever' });
  const cancelled = await client.cancelTask(task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(requests('tasks/cancel', task.taskId).length, 1);
  await assert.rejects(client.getTaskResult(task.taskId), AbortError);
});

test('a server that does not declare the extension: no task asked for; a task it returns anyway is followed', async () => {
  const { client, requests } = tasksClient(['--no-extension']);
  await client.connect();
  await assert.rejects(client.startToolTask({ name: 'slow' }), (error) => {
    return error instanceof CapabilityError && error.message.includes(TASKS);
  });
  assert.equal(requests('tools/call').length, 0, 'nothing sent');
  await assert.rejects(client.getTask('task-9'), CapabilityError);
  const result = await client.callTool({ name: 'slow', arguments: { ms: 50, text: 'anyway' } });
  assert.equal(textOf(result), 'anyway');
});

test('listTasks in the modern era is refused: the extension has no tasks/list', async () => {
  const { client, requests } = tasksClient();
  await client.connect();
  await assert.rejects(client.listTasks(), /has no tasks\/list/);
  assert.equal(requests('tasks/list').length, 0);
});

test('the extensions used are declared: every modern request carries them; the legacy handshake cannot', async () => {
  const modern = tasksClient([], { handlers: { elicitation: async () => ({ action: 'cancel' }) } });
  await modern.client.connect();
  await modern.client.callTool({ name: 'quick' });
  const received = modern.record.read() as Message[];
  assert.ok(received.length >= 2);
  for (const message of received) {
    const meta = message.params?._meta as Record<string, unknown>;
    assert.deepEqual(
      meta['io.modelcontextprotocol/clientCapabilities'],
      { elicitation: { form: {} }, extensions: { [SKILLS]: {}, [TASKS]: {} } },
      `${message.method} declares the extensions`,
    );
  }
  const legacy = tasksClient(['--era', 'legacy']);
  await legacy.client.connect();
  assert.equal(legacy.client.era, 'legacy');
  const initialize = legacy.requests('initialize')[0]!;
  validateMessage(initialize, 'legacy', 'InitializeRequest');
  const capabilities = initialize.params!.capabilities as Record<string, unknown>;
  assert.equal(capabilities.extensions, undefined, '2025-11-25 ClientCapabilities has no extensions field');
});
