// Every Client feature in the MODERN era (2026-07-28), asserted through the public Client with
// protocol 'auto' against the official server SDK (`@modelcontextprotocol/server` 2.4, `serveStdio`):
// the dual-era fixture with `--features` (test/fixtures/servers/sdk-dual-era.mjs). The legacy era of
// the same features is covered by everything-features.test.ts against server-everything.
//
// The fixture's `--record` file is the server's side of the wire: every message serveStdio received,
// in order, so the tests count requests (caching), read the `_meta` each one carried (log level,
// client capabilities) and see what the client did not send (no logging/setLevel, no initialize).
//
// What the SDK 2.4 does in the modern era, read from its dist (mcp-*.mjs, stdio.mjs, listenRouter-*.mjs):
// - logging: `ctx.mcpReq.log()` sends notifications/message only when the request's `_meta` carries
//   `io.modelcontextprotocol/logLevel`, filtered by it (no level: nothing is sent);
// - change notifications: serveStdio serves `subscriptions/listen` itself (ack, then each matching
//   list_changed / resources/updated stamped with the subscription id, the listen request's id);
//   it honours only what the capabilities declare, and drops any change nobody subscribed to;
// - caching: `cacheHints` per operation and `cacheHint` per resource fill `ttlMs`/`cacheScope`;
//   without one a result says `ttlMs: 0` (not cacheable);
// - input: the push-style server-to-client requests throw on a modern instance; a handler returns
//   `inputRequired(...)` (elicitation, sampling, roots) on tools/call, prompts/get and resources/read,
//   and the SDK refuses (-32021) an input request whose capability the request's `_meta` lacks;
// - not in the SDK's modern era: ping, logging/setLevel as the way to set a level (the handler
//   exists but the per-request `_meta` is what counts), resources/subscribe, and pagination (McpServer
//   never pages its lists, so one page is all there is to assert).
import assert from 'node:assert/strict';
import process from 'node:process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AbortError,
  CapabilityError,
  Client,
  type ClientHandlers,
  type ClientOptions,
  type CloseReason,
  type HandlerContext,
  type JsonRpcNotification,
  McpError,
  type Progress,
  ProtocolError,
  type ReadyEvent,
} from '../../src/index.js';
import type { CallToolResult, LogMessage } from '../../src/protocol/results.js';
import { fixture } from '../helpers/fixtures.js';
import { guardProcesses, waitGroupGone } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';
import { names, textOf, waitFor } from '../helpers/wait.js';

guardProcesses();

const SERVER = fixture('sdk-dual-era.mjs');
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> };

/** What the server received, and what one client saw from the moment it was created. */
interface Seen {
  /** Every message the server received so far, in order. */
  received: () => Message[];
  requests: (method: string) => Message[];
  notifications: JsonRpcNotification[];
  logs: LogMessage[];
  updated: string[];
  ready: ReadyEvent[];
  disconnected: CloseReason[];
}

let serial = 0;

/**
 * Starts the SDK fixture (with `--features` unless `plain`), connects with protocol 'auto',
 * checks the era is modern, runs `use`, closes the client and checks the server exited on its own.
 */
async function withSdk(
  use: (client: Client, seen: Seen) => Promise<void>,
  options: { handlers?: ClientHandlers; client?: Partial<ClientOptions>; plain?: boolean } = {},
): Promise<void> {
  const record = stdinRecord();
  const client = new Client({
    name: `sdk-modern-${++serial}`,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [SERVER, ...(options.plain ? [] : ['--features']), '--record', record.file],
      stderr: 'inherit',
    },
    // A busy machine may start the SDK slowly: a missed probe would (rightly) end in legacy.
    probeTimeout: 15_000,
    requestTimeout: 20_000,
    reconnect: { maxReconnects: 0 },
    handlers: options.handlers ?? {},
    ...options.client,
  });
  const received = () => record.read() as Message[];
  const seen: Seen = {
    received,
    requests: (method) => received().filter((message) => message.method === method && 'id' in message),
    notifications: [],
    logs: [],
    updated: [],
    ready: [],
    disconnected: [],
  };
  client.on('notification', (notification) => seen.notifications.push(notification));
  client.on('log', (message) => seen.logs.push(message));
  client.on('resourceUpdated', ({ uri }) => seen.updated.push(uri));
  client.on('ready', (event) => seen.ready.push(event));
  client.on('disconnected', (reason) => seen.disconnected.push(reason));
  try {
    await client.connect();
    assert.equal(client.era, 'modern', 'protocol auto reached the modern era');
    assert.equal(client.protocolVersion, '2026-07-28');
    await use(client, seen);
    const pid = client.pid!;
    await client.close();
    assert.equal(client.state, 'closed');
    assert.ok(await waitGroupGone(pid, 10_000), `server ${pid} still runs`);
  } finally {
    await client.close();
  }
}

const metaOf = (message: Message) => (message.params?._meta ?? {}) as Record<string, unknown>;
const countOf = (seen: Seen, event: string) => seen.notifications.filter((n) => n.method === event).length;

/** Counts one Client event. */
function counter(client: Client, event: 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged') {
  const count = { value: 0 };
  const listener = () => count.value++;
  client.on(event, listener);
  return { count, stop: () => client.off(event, listener) };
}

/** Every `notifications/subscriptions/acknowledged` so far (one per listen stream opened). */
function acknowledgements(seen: Seen): JsonRpcNotification[] {
  return seen.notifications.filter((n) => n.method === 'notifications/subscriptions/acknowledged');
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// ---------------------------------------------------------------------------------------------

test('discovery: auto probes with server/discover, no initialize; capabilities, identity, and the per-request _meta envelope', async () => {
  await withSdk(
    async (client, seen) => {
      assert.equal(client.serverInfo?.name, 'sdk-dual-era');
      assert.equal(client.serverInfo?.version, '1.0.0');
      // McpServer adds listChanged to every list it serves; completions because of completable().
      assert.deepEqual(client.serverCapabilities, {
        logging: {},
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
        prompts: { listChanged: true },
        completions: {},
      });
      await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      const received = seen.received();
      assert.equal(received[0]?.method, 'server/discover', 'the probe opened the connection');
      assert.ok(!received.some((message) => message.method === 'initialize'), 'no legacy handshake');
      for (const message of received) {
        const meta = metaOf(message);
        assert.equal(meta[META_VERSION], '2026-07-28', `${message.method} carries the version`);
        // Our capabilities follow from the handlers given.
        assert.deepEqual(
          meta[META_CAPABILITIES],
          {
            elicitation: { form: {} },
            roots: {},
            extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
          },
          `${message.method}`,
        );
        assert.equal((meta[META_CLIENT_INFO] as { name: string }).name, 'conduit-mcp');
      }
    },
    {
      handlers: {
        elicitation: async () => ({ action: 'cancel' }),
        roots: async () => ({ roots: [] }),
      },
    },
  );
});

test('tools: schemas; text, image, audio, resource_link and embedded blocks; structuredContent; isError results; an unknown tool is McpError', async () => {
  await withSdk(async (client) => {
    const { tools, nextCursor } = await client.listTools();
    assert.equal(nextCursor, undefined);
    for (const name of [
      'echo',
      'count',
      'media',
      'weather',
      'fail',
      'throw',
      'log',
      'change',
      'touch',
      'deploy',
    ]) {
      assert.ok(names(tools).includes(name), `lists ${name}`);
    }
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object', tool.name);
    const weather = tools.find((tool) => tool.name === 'weather')!;
    assert.deepEqual(weather.inputSchema.required, ['city']);
    assert.equal(weather.outputSchema?.type, 'object');
    assert.deepEqual(Object.keys(weather.outputSchema?.properties as object).sort(), [
      'city',
      'conditions',
      'temperature',
    ]);

    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'héllo, wörld ✓' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'héllo, wörld ✓' }]);
    assert.equal(echoed.resultType, 'complete', 'a modern result says it is complete');

    const media = await client.callTool({ name: 'media', arguments: {} });
    assert.deepEqual(
      media.content.map((block) => block.type),
      ['text', 'image', 'audio', 'resource_link', 'resource', 'resource'],
    );
    const [, image, audio, link, embeddedText, embeddedBlob] = media.content;
    assert.ok(image?.type === 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(image.data, 'base64').subarray(0, 8), PNG_SIGNATURE, 'a real PNG');
    assert.ok(audio?.type === 'audio');
    assert.equal(audio.mimeType, 'audio/wav');
    assert.equal(Buffer.from(audio.data, 'base64').subarray(0, 4).toString('latin1'), 'RIFF');
    assert.ok(link?.type === 'resource_link');
    assert.deepEqual(
      { uri: link.uri, name: link.name, mimeType: link.mimeType },
      { uri: 'memo://greeting', name: 'greeting', mimeType: 'text/plain' },
    );
    assert.ok(embeddedText?.type === 'resource' && 'text' in embeddedText.resource);
    assert.equal(embeddedText.resource.text, 'embedded text');
    assert.ok(embeddedBlob?.type === 'resource' && 'blob' in embeddedBlob.resource);
    assert.deepEqual([...Buffer.from(embeddedBlob.resource.blob, 'base64')], [0, 1, 2]);

    const structured = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
    const expected = { city: 'Oslo', temperature: 21.5, conditions: 'sunny' };
    assert.deepEqual(structured.structuredContent, expected);
    assert.deepEqual(JSON.parse(textOf(structured)), expected, 'the text block agrees');

    // Tool failures are results, not rejections.
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.content, [{ type: 'text', text: 'the tool failed on purpose' }]);
    const thrown = await client.callTool({ name: 'throw', arguments: {} });
    assert.equal(thrown.isError, true);
    assert.deepEqual(thrown.content, [{ type: 'text', text: 'thrown by the handler' }]);
    const invalid = await client.callTool({ name: 'weather', arguments: {} });
    assert.equal(invalid.isError, true);
    assert.match(textOf({ content: invalid.content }), /Input validation error: .*weather/);
    // Unlike the legacy SDK in server-everything, SDK 2.4 answers an unknown tool with -32602.
    await assert.rejects(client.callTool({ name: 'no-such-tool', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, /Tool no-such-tool not found/);
      return true;
    });
    assert.equal(
      textOf(await client.callTool({ name: 'echo', arguments: { text: 'still fine' } })),
      'still fine',
    );
  });
});

test('progress: every step reaches onProgress in order before the result; resetTimeoutOnProgress outlasts the timeout; no token without onProgress', async () => {
  await withSdk(async (client, seen) => {
    const updates: Progress[] = [];
    const counted = await client.callTool(
      { name: 'count', arguments: { steps: 3 } },
      { onProgress: (progress) => updates.push(progress) },
    );
    assert.equal(textOf(counted), 'counted 3');
    assert.deepEqual(updates, [
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);

    // 8 steps 250 ms apart take 2 s, longer than the 1.5 s timeout that each step restarts.
    let steps = 0;
    const slow = await client.callTool(
      { name: 'count', arguments: { steps: 8, delayMs: 250 } },
      { onProgress: () => steps++, timeout: 1500, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000 },
    );
    assert.equal(textOf(slow), 'counted 8');
    assert.equal(steps, 8);

    const quiet = await client.callTool({ name: 'count', arguments: { steps: 2 } });
    assert.equal(textOf(quiet), 'counted 2');
    const calls = seen.requests('tools/call').filter((call) => call.params?.name === 'count');
    assert.deepEqual(
      calls.map((call) => metaOf(call).progressToken !== undefined),
      [true, true, false],
      'a progressToken only with onProgress',
    );
    assert.equal(countOf(seen, 'notifications/progress'), 11);
  });
});

test('resources: listResources (static and template-listed), listResourceTemplates, readResource of static and templated URIs, complete() for a template', async () => {
  await withSdk(async (client) => {
    const { resources } = await client.listResources();
    assert.deepEqual(
      resources.map((resource) => [resource.uri, resource.name, resource.mimeType]),
      [
        ['memo://greeting', 'greeting', 'text/plain'],
        ['memo://counter', 'counter', 'text/plain'],
        ['memo://guarded', 'guarded', 'text/plain'],
        ['memo://notes/1', 'note 1', 'text/plain'],
        ['memo://notes/2', 'note 2', 'text/plain'],
      ],
    );
    assert.equal(resources[0]?.title, 'Greeting');

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates, [
      { name: 'note', uriTemplate: 'memo://notes/{id}', mimeType: 'text/plain', description: 'A note by id' },
    ]);

    const greeting = await client.readResource({ uri: 'memo://greeting' });
    assert.deepEqual(greeting.contents, [
      { uri: 'memo://greeting', mimeType: 'text/plain', text: 'hello from the SDK' },
    ]);
    const note = await client.readResource({ uri: 'memo://notes/42' });
    assert.deepEqual(note.contents, [{ uri: 'memo://notes/42', mimeType: 'text/plain', text: 'note 42' }]);
    // An unknown resource is a JSON-RPC error.
    await assert.rejects(client.readResource({ uri: 'memo://nothing' }), McpError);

    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'memo://notes/{id}' },
      argument: { name: 'id', value: '1' },
    });
    assert.deepEqual(ids.completion, { values: ['1', '10'], total: 2, hasMore: false });
  });
});

test('prompts: listPrompts with arguments, getPrompt, an unknown prompt is McpError; complete() for a prompt argument', async () => {
  await withSdk(async (client) => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(names(prompts), ['greet', 'plan', 'review']);
    assert.deepEqual(prompts[1]?.arguments, [{ name: 'language', required: true }]);
    assert.equal(prompts[1]?.description, 'Plans a project in a language');

    const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(greet.messages, [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    const plan = await client.getPrompt({ name: 'plan', arguments: { language: 'rust' } });
    assert.deepEqual(plan.messages, [
      { role: 'user', content: { type: 'text', text: 'Plan a rust project' } },
    ]);
    await assert.rejects(client.getPrompt({ name: 'no-such-prompt' }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.match(error.message, /no-such-prompt/);
      return true;
    });

    const languages = await client.complete({
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'language', value: '' },
    });
    assert.deepEqual(languages.completion.values, ['go', 'python', 'rust', 'typescript']);
    const t = await client.complete({
      ref: { type: 'ref/prompt', name: 'plan' },
      argument: { name: 'language', value: 't' },
    });
    assert.deepEqual(t.completion.values, ['typescript']);
  });
});

test('logging: no level, no messages; setLogLevel (or the logLevel option) sends nothing, the level travels in each request _meta and the server filters by it; messages arrive as log events', async () => {
  await withSdk(async (client, seen) => {
    const all = ['debug', 'info', 'warning', 'error'];
    // The SDK's modern ctx.mcpReq.log() sends nothing unless the request carries a level.
    assert.equal(textOf(await client.callTool({ name: 'log', arguments: { levels: all } })), 'none');
    assert.equal(seen.logs.length, 0);
    assert.ok(!(META_LOG_LEVEL in metaOf(seen.requests('tools/call').at(-1)!)));

    const before = seen.received().length;
    await client.setLogLevel('warning');
    assert.equal(seen.received().length, before, 'setLogLevel wrote nothing');
    // The messages precede the result on the wire: they have all arrived when the call resolves.
    assert.equal(textOf(await client.callTool({ name: 'log', arguments: { levels: all } })), 'warning');
    assert.deepEqual(seen.logs, [
      { level: 'warning', data: 'a warning message', logger: 'sdk-fixture' },
      { level: 'error', data: 'a error message', logger: 'sdk-fixture' },
    ]);
    assert.equal(metaOf(seen.requests('tools/call').at(-1)!)[META_LOG_LEVEL], 'warning');

    await client.setLogLevel('debug');
    await client.listPrompts();
    assert.equal(metaOf(seen.requests('prompts/list').at(-1)!)[META_LOG_LEVEL], 'debug', 'on every request');
    seen.logs.length = 0;
    assert.equal(textOf(await client.callTool({ name: 'log', arguments: { levels: all } })), 'debug');
    assert.deepEqual(
      seen.logs.map((log) => log.level),
      all,
    );
    assert.equal(seen.requests('logging/setLevel').length, 0, 'never logging/setLevel in the modern era');
    assert.equal(countOf(seen, 'notifications/message'), 2 + 4);
  });

  // The logLevel option: the level goes with every request from the probe on.
  await withSdk(
    async (client, seen) => {
      assert.equal(
        metaOf(seen.received()[0]!)[META_LOG_LEVEL],
        'error',
        'the probe carried it, and still went modern',
      );
      assert.equal(
        textOf(await client.callTool({ name: 'log', arguments: { levels: ['warning', 'error'] } })),
        'error',
      );
      assert.deepEqual(seen.logs, [{ level: 'error', data: 'a error message', logger: 'sdk-fixture' }]);
    },
    { client: { logLevel: 'error' } },
  );
});

test('change notifications: one subscriptions/listen for what is listened to; list_changed events; the stream is replaced when the filter grows and cancelled when nobody listens', async () => {
  await withSdk(async (client, seen) => {
    const tools = counter(client, 'toolsListChanged');
    await waitFor(() => acknowledgements(seen).length === 1, 'the acknowledgement of the first listen');
    const [first] = seen.requests('subscriptions/listen');
    assert.equal(typeof first?.id, 'string', 'a listen request has a string id');
    assert.deepEqual(first?.params?.notifications, { toolsListChanged: true });
    assert.deepEqual(acknowledgements(seen)[0]?.params, {
      notifications: { toolsListChanged: true },
      _meta: { [META_SUBSCRIPTION_ID]: first?.id },
    });

    assert.equal(textOf(await client.callTool({ name: 'change', arguments: { kind: 'tools' } })), 'added-1');
    await waitFor(() => tools.count.value === 1, 'toolsListChanged');
    assert.ok(names((await client.listTools()).tools).includes('added-1'));
    // Nobody listens to prompts: the server drops that change. The SDK writes a list_changed
    // before the result of the call that caused it, so by the time a call resolves, any
    // notification it caused has been handled.
    await client.callTool({ name: 'change', arguments: { kind: 'prompts' } });
    assert.equal(countOf(seen, 'notifications/prompts/list_changed'), 0);

    // More listeners: a new stream asks for everything, then the one it replaces is cancelled.
    // (Each listener added changes the filter, so two added in a row open two streams, the first
    // replaced at once: the client does not coalesce the changes of one tick. Wasteful, correct.)
    const prompts = counter(client, 'promptsListChanged');
    const resources = counter(client, 'resourcesListChanged');
    const everything = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
    const listens = () => seen.requests('subscriptions/listen');
    const acknowledged = (id: unknown) =>
      acknowledgements(seen).some(
        (ack) => ((ack.params?._meta ?? {}) as Record<string, unknown>)[META_SUBSCRIPTION_ID] === id,
      );
    const cancelledIds = () =>
      seen.received().flatMap((m) => (m.method === 'notifications/cancelled' ? [m.params?.requestId] : []));
    await waitFor(() => {
      const last = listens().at(-1);
      return (
        JSON.stringify(last?.params?.notifications) === JSON.stringify(everything) && acknowledged(last?.id)
      );
    }, 'the acknowledged listen for all three lists');
    const current = listens().at(-1)?.id;
    await waitFor(
      () => listens().every((listen) => listen.id === current || cancelledIds().includes(listen.id)),
      'every replaced stream cancelled',
    );
    assert.ok(!cancelledIds().includes(current));

    await client.callTool({ name: 'change', arguments: { kind: 'prompts' } });
    await client.callTool({ name: 'change', arguments: { kind: 'resources' } });
    await client.callTool({ name: 'change', arguments: { kind: 'tools' } });
    await waitFor(() => tools.count.value === 2, 'the second toolsListChanged');
    assert.equal(prompts.count.value, 1);
    assert.equal(resources.count.value, 1);
    assert.equal(tools.count.value, 2, 'exactly one event per change: the replaced streams are gone');
    // Each notification names the stream it came on: the first, then the one that replaced it.
    assert.deepEqual(
      seen.notifications
        .filter((n) => n.method.endsWith('/list_changed'))
        .map((n) => [n.method, ((n.params?._meta ?? {}) as Record<string, unknown>)[META_SUBSCRIPTION_ID]]),
      [
        ['notifications/tools/list_changed', first?.id],
        ['notifications/prompts/list_changed', current],
        ['notifications/resources/list_changed', current],
        ['notifications/tools/list_changed', current],
      ],
    );
    // added-2 (a prompt nobody was told about), added-3 (prompt), added-4 (resource).
    assert.deepEqual(names((await client.listPrompts()).prompts).slice(-2), ['added-2', 'added-3']);
    assert.ok((await client.listResources()).resources.some((resource) => resource.uri === 'memo://added-4'));

    // Nobody listens any more: every stream is cancelled, changes no longer reach us.
    tools.stop();
    prompts.stop();
    resources.stop();
    await waitFor(() => cancelledIds().includes(current), 'the last stream cancelled');
    await waitFor(
      () => listens().every((listen) => cancelledIds().includes(listen.id)),
      'every listen stream cancelled',
    );
    // Removing the three listeners one by one shrinks the filter twice before it is empty, and a
    // stream opened for a shrunk filter may reach the server after the check above passed: wait
    // until the server has seen no new listen for three polls in a row, every one cancelled.
    for (let polls = 0, stable = 0, last = -1; stable < 3; polls++) {
      assert.ok(polls < 100, 'the listen streams settle');
      await sleep(100);
      const settled = listens().every((listen) => cancelledIds().includes(listen.id));
      stable = settled && listens().length === last ? stable + 1 : 0;
      last = listens().length;
    }
    for (const listen of listens().slice(listens().findIndex((l) => l.id === current) + 1)) {
      const filter = (listen.params?.notifications ?? {}) as Record<string, unknown>;
      assert.ok(!('toolsListChanged' in filter), 'a listen after the removal never asks for tools');
    }
    const notificationsBefore = seen.notifications.length;
    await client.callTool({ name: 'change', arguments: { kind: 'tools' } });
    await client.callTool({ name: 'change', arguments: { kind: 'prompts' } });
    assert.equal(
      seen.notifications.length,
      notificationsBefore,
      'nothing arrives once every stream is closed',
    );
  });
});

test('resource subscriptions: subscribeResource resolves once the listen is acknowledged; resourceUpdated for subscribed URIs only; unsubscribe closes the stream', async () => {
  await withSdk(async (client, seen) => {
    await client.subscribeResource('memo://counter');
    const [first] = seen.requests('subscriptions/listen');
    assert.deepEqual(first?.params?.notifications, { resourceSubscriptions: ['memo://counter'] });
    assert.equal(acknowledgements(seen).length, 1, 'acknowledged before subscribeResource resolved');

    await client.callTool({ name: 'touch', arguments: { uri: 'memo://greeting' } });
    assert.deepEqual(seen.updated, [], 'memo://greeting is not subscribed: the server drops it');
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://counter' } });
    await waitFor(() => seen.updated.length === 1, 'resourceUpdated');
    assert.deepEqual(seen.updated, ['memo://counter']);
    const [update] = seen.notifications.filter((n) => n.method === 'notifications/resources/updated');
    assert.deepEqual(update?.params, { uri: 'memo://counter', _meta: { [META_SUBSCRIPTION_ID]: first?.id } });

    // A second URI replaces the stream with one filter for both.
    await client.subscribeResource('memo://greeting');
    const second = seen.requests('subscriptions/listen')[1];
    assert.deepEqual(second?.params?.notifications, {
      resourceSubscriptions: ['memo://counter', 'memo://greeting'],
    });
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://greeting' } });
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://counter' } });
    await waitFor(() => seen.updated.length === 3, 'two more resourceUpdated');
    assert.deepEqual(seen.updated, ['memo://counter', 'memo://greeting', 'memo://counter']);

    await client.unsubscribeResource('memo://greeting');
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://greeting' } });
    assert.equal(seen.updated.length, 3, 'no update after unsubscribing');
    await client.unsubscribeResource('memo://counter');
    const listens = seen.requests('subscriptions/listen');
    assert.equal(listens.length, 3);
    await waitFor(
      () =>
        seen
          .received()
          .some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === listens[2]?.id),
      'the last stream cancelled',
    );
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://counter' } });
    assert.equal(seen.updated.length, 3);
    assert.equal(seen.requests('resources/subscribe').length, 0, 'no resources/subscribe in the modern era');
    assert.equal(seen.requests('resources/unsubscribe').length, 0);
    // The server read the counter: 3 touches of memo://counter so far.
    const read = await client.readResource({ uri: 'memo://counter' });
    assert.equal((read.contents[0] as { text: string }).text, '3');
  });
});

test('caching: ttlMs/cacheScope from the SDK cache hints; fresh results are served from the cache (counted on the server), ttlMs 0 never; a change notification or resource update drops entries', async () => {
  await withSdk(async (client, seen) => {
    const count = (method: string) => seen.requests(method).length;

    const tools = await client.listTools();
    assert.equal(tools.ttlMs, 60_000);
    assert.equal(tools.cacheScope, 'private');
    const again = await client.listTools();
    assert.deepEqual(again, tools);
    assert.equal(count('tools/list'), 1, 'the second listTools came from the cache');

    const prompts = await client.listPrompts();
    assert.deepEqual([prompts.ttlMs, prompts.cacheScope], [60_000, 'public']);
    await client.listPrompts();
    assert.equal(count('prompts/list'), 1);
    const templates = await client.listResourceTemplates();
    assert.deepEqual([templates.ttlMs, templates.cacheScope], [60_000, 'private']);
    await client.listResourceTemplates();
    assert.equal(count('resources/templates/list'), 1);
    // No hint for resources/list: the SDK says ttlMs 0, so every call reaches the server.
    const resources = await client.listResources();
    assert.deepEqual([resources.ttlMs, resources.cacheScope], [0, 'private']);
    await client.listResources();
    assert.equal(count('resources/list'), 2);

    // resources/read: a per-resource hint (memo://counter, 60 s public) versus none (a note).
    const counter = await client.readResource({ uri: 'memo://counter' });
    assert.deepEqual([counter.ttlMs, counter.cacheScope], [60_000, 'public']);
    await client.readResource({ uri: 'memo://counter' });
    await client.readResource({ uri: 'memo://notes/1' });
    await client.readResource({ uri: 'memo://notes/1' });
    const reads = () => seen.requests('resources/read').map((read) => read.params?.uri);
    assert.deepEqual(reads(), ['memo://counter', 'memo://notes/1', 'memo://notes/1']);

    // A resource update (on a subscription) drops that URI's reads: the next read is fresh.
    await client.subscribeResource('memo://counter');
    await client.callTool({ name: 'touch', arguments: { uri: 'memo://counter' } });
    await waitFor(() => seen.updated.length === 1, 'resourceUpdated');
    const bumped = await client.readResource({ uri: 'memo://counter' });
    assert.equal((bumped.contents[0] as { text: string }).text, '1');
    assert.equal(reads().filter((uri) => uri === 'memo://counter').length, 2);

    // tools/list_changed drops the cached tool list (and only it).
    let changed = 0;
    client.on('toolsListChanged', () => changed++);
    await waitFor(() => acknowledgements(seen).length === 2, 'the listen with toolsListChanged');
    await client.callTool({ name: 'change', arguments: { kind: 'tools' } });
    await waitFor(() => changed === 1, 'toolsListChanged');
    const fresh = await client.listTools();
    assert.equal(count('tools/list'), 2);
    assert.ok(names(fresh.tools).includes('added-1'));
    await client.listPrompts();
    assert.equal(count('prompts/list'), 1, 'the prompt list stayed cached');
  });
});

test('caching off (cache: false): every list and read reaches the server', async () => {
  await withSdk(
    async (client, seen) => {
      await client.listTools();
      await client.listTools();
      await client.readResource({ uri: 'memo://counter' });
      await client.readResource({ uri: 'memo://counter' });
      assert.equal(seen.requests('tools/list').length, 2);
      assert.equal(seen.requests('resources/read').length, 2);
    },
    { client: { cache: false } },
  );
});

test('input_required: elicitation, then sampling and roots, answered by the handlers over three rounds with requestState; a decline ends it; prompts/get and resources/read too, never cached', async () => {
  const calls: Array<{ kind: string; params: Record<string, unknown>; context: HandlerContext }> = [];
  let confirm = true;
  await withSdk(
    async (client, seen) => {
      const deployed = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
      assert.equal(textOf(deployed), 'deployed to prod');
      assert.deepEqual(deployed.structuredContent, {
        env: 'prod',
        notes: {
          role: 'assistant',
          content: { type: 'text', text: 'Ship it.' },
          model: 'conduit-test-model',
          stopReason: 'endTurn',
        },
        roots: [{ uri: 'file:///srv/project', name: 'project' }],
      });
      assert.deepEqual(
        calls.map((call) => call.kind),
        ['elicitation', 'sampling', 'roots'],
      );
      assert.deepEqual(calls[0]?.params, {
        message: 'Deploy to prod?',
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
          $schema: 'https://json-schema.org/draft/2020-12/schema',
        },
        mode: 'form',
      });
      assert.deepEqual(calls[1]?.params, {
        messages: [{ role: 'user', content: { type: 'text', text: 'Release notes for prod?' } }],
        maxTokens: 100,
      });
      assert.deepEqual(calls[2]?.params, {});
      for (const call of calls) assert.equal(call.context.server, client.name);

      // Three requests with three ids; each retry repeats the call with the answers and the state.
      const rounds = seen.requests('tools/call');
      assert.equal(rounds.length, 3);
      assert.equal(new Set(rounds.map((round) => round.id)).size, 3, 'a retry is a new request');
      for (const round of rounds) {
        assert.equal(round.params?.name, 'deploy');
        assert.deepEqual(round.params?.arguments, { env: 'prod' });
      }
      assert.equal(rounds[0]?.params?.requestState, undefined);
      assert.equal(rounds[0]?.params?.inputResponses, undefined);
      assert.equal(rounds[1]?.params?.requestState, 'asked');
      assert.deepEqual(rounds[1]?.params?.inputResponses, {
        confirm: { action: 'accept', content: { confirm: true } },
      });
      assert.equal(rounds[2]?.params?.requestState, 'confirmed');
      assert.deepEqual(Object.keys(rounds[2]?.params?.inputResponses as object).sort(), ['notes', 'roots']);

      confirm = false;
      const declined = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
      assert.equal(textOf(declined), 'not deployed: decline');
      assert.equal(seen.requests('tools/call').length, 5);

      // prompts/get and resources/read may ask for input too.
      const review = await client.getPrompt({ name: 'review' });
      assert.deepEqual(review.messages, [{ role: 'user', content: { type: 'text', text: 'Review by Ada' } }]);
      const guarded = await client.readResource({ uri: 'memo://guarded' });
      assert.deepEqual(guarded.contents, [
        { uri: 'memo://guarded', mimeType: 'text/plain', text: 'the secret' },
      ]);
      assert.equal(guarded.ttlMs, 60_000, 'the result says it may be cached...');
      await client.readResource({ uri: 'memo://guarded' });
      assert.equal(seen.requests('resources/read').length, 4, '...but one obtained by a retry never is');
    },
    {
      handlers: {
        elicitation: async (params, context) => {
          calls.push({ kind: 'elicitation', params, context });
          if (params.message === 'Who reviews?') return { action: 'accept', content: { name: 'Ada' } };
          if (params.message === 'Password?')
            return { action: 'accept', content: { password: 'open sesame' } };
          return confirm ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
        },
        sampling: async (params, context) => {
          calls.push({ kind: 'sampling', params, context });
          return {
            role: 'assistant',
            content: { type: 'text', text: 'Ship it.' },
            model: 'conduit-test-model',
            stopReason: 'endTurn',
          };
        },
        roots: async (params, context) => {
          calls.push({ kind: 'roots', params, context });
          return { roots: [{ uri: 'file:///srv/project', name: 'project' }] };
        },
      },
    },
  );
});

test('input_required limits: the SDK refuses (-32021) input a client without handlers cannot give; a server that keeps asking stops after 10 rounds; abort during a handler', async () => {
  await withSdk(async (client, seen) => {
    // No handlers: no capability in _meta, and the SDK checks before it asks.
    await assert.rejects(
      client.callTool({ name: 'deploy', arguments: { env: 'prod' } }),
      (error: unknown) => {
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, -32021);
        assert.match(error.message, /elicitation\/create/);
        return true;
      },
    );
    assert.equal(seen.requests('tools/call').length, 1);
  });

  let asked = 0;
  await withSdk(
    async (client, seen) => {
      // memo://guarded asks again after a decline, forever: the client gives up.
      await assert.rejects(client.readResource({ uri: 'memo://guarded' }), (error: unknown) => {
        assert.ok(error instanceof ProtocolError, String(error));
        assert.match(error.message, /still asked for input after 10 rounds/);
        return true;
      });
      assert.equal(seen.requests('resources/read').length, 10);
      assert.equal(asked, 9);

      // Aborting while a handler runs rejects at once and sends no retry.
      const controller = new AbortController();
      const reading = client.readResource({ uri: 'memo://guarded' }, { signal: controller.signal });
      await waitFor(() => asked === 10, 'the elicitation handler');
      controller.abort(new Error('the user gave up'));
      await assert.rejects(reading, AbortError);
      await sleep(50);
      assert.equal(seen.requests('resources/read').length, 11, 'no retry after the abort');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'ok' } })), 'ok');
    },
    {
      handlers: {
        elicitation: async (_params, { signal }) => {
          asked++;
          if (asked <= 9) return { action: 'decline' };
          // The 10th waits for the abort.
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          return { action: 'cancel' };
        },
      },
    },
  );
});

test('restart: after the server is killed the client restarts it in the modern era, confirmed by one server/discover, re-opens the listen stream, and drops the cache', async () => {
  await withSdk(
    async (client, seen) => {
      let changed = 0;
      client.on('toolsListChanged', () => changed++);
      await client.subscribeResource('memo://counter');
      await client.listTools();
      await client.listTools();
      assert.equal(seen.requests('tools/list').length, 1);

      const first = client.pid!;
      const before = seen.received().length;
      process.kill(first, 'SIGKILL');
      await waitFor(() => seen.ready.length === 2 && client.state === 'ready', 'the restart');
      assert.equal(seen.disconnected.length, 1);
      assert.notEqual(client.pid, first);
      assert.deepEqual(
        seen.ready.map((event) => event.era),
        ['modern', 'modern'],
      );
      await waitFor(() => seen.received().length > before + 1, 'the first messages to the new server');
      // The remembered era is checked, not trusted: one server/discover confirms it on the new
      // process, then the listen stream is re-opened.
      const [confirm, opening] = seen.received().slice(before);
      assert.equal(confirm!.method, 'server/discover');
      assert.equal(opening!.method, 'subscriptions/listen');
      assert.deepEqual(opening!.params?.notifications, {
        toolsListChanged: true,
        resourceSubscriptions: ['memo://counter'],
      });
      assert.equal(
        seen
          .received()
          .slice(before)
          .filter((m) => m.method === 'server/discover').length,
        1,
      );
      await waitFor(() => acknowledgements(seen).length === 3, 'the acknowledgement on the new server');

      await client.listTools();
      assert.equal(seen.requests('tools/list').length, 2, 'the cache was dropped on restart');
      await client.callTool({ name: 'change', arguments: { kind: 'tools' } });
      await client.callTool({ name: 'touch', arguments: { uri: 'memo://counter' } });
      await waitFor(() => changed === 1 && seen.updated.length === 1, 'events on the re-opened stream');
      assert.deepEqual(seen.updated, ['memo://counter']);
    },
    { client: { reconnect: { maxReconnects: 2, initialDelay: 50, maxDelay: 200 } } },
  );
});

test('capability checks (plain fixture): subscribeResource and complete() fail fast with CapabilityError, nothing written', async () => {
  await withSdk(
    async (client, seen) => {
      assert.deepEqual(client.serverCapabilities, {
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
      });
      const before = seen.received().length;
      await assert.rejects(client.subscribeResource('memo://greeting'), CapabilityError);
      await assert.rejects(
        client.complete({
          ref: { type: 'ref/prompt', name: 'greet' },
          argument: { name: 'name', value: 'A' },
        }),
        CapabilityError,
      );
      await sleep(50);
      assert.equal(seen.received().length, before, 'no round trip');
      const result: CallToolResult = await client.callTool({ name: 'echo', arguments: { text: 'ok' } });
      assert.equal(textOf(result), 'ok');
    },
    { plain: true },
  );
});
