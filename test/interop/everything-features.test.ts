// Every feature @modelcontextprotocol/server-everything exercises, asserted through the public
// Client against the real published server (a legacy-era server on the official TypeScript SDK):
// tools and every content block type it returns, tool errors as results, progress, sampling,
// elicitation and roots answered by our handlers, logging, resources and subscriptions, prompts
// and completions, the tools/list_changed burst it sends right after initialization, and
// results far longer than 1 MB on one stdout line. Tool names and arguments come from the
// server's own source (node_modules/@modelcontextprotocol/server-everything/dist).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dc from 'node:diagnostics_channel';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import {
  Client,
  type ClientHandlers,
  type CloseReason,
  type HandlerContext,
  type JsonRpcNotification,
  LEGACY_VERSIONS,
  McpError,
  type Progress,
  UsageError,
} from '../../src/index.js';
import type { LogMessage } from '../../src/protocol/results.js';
import { guardProcesses, waitGroupGone } from '../helpers/processes.js';
import { names, textOf, waitFor } from '../helpers/wait.js';

guardProcesses();

const root = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-everything');
const { bin } = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
};
/** `dist/index.js`, whose first argument picks the transport (`start:stdio` runs `node dist/index.js stdio`). */
const ENTRY = path.join(PACKAGE, bin['mcp-server-everything']!);
/** The server exposes each file of its docs directory as a static resource. */
const DOCS = path.join(path.dirname(ENTRY), 'docs');

/** Tools registered for every client (tools/index.ts `registerTools`). */
const ALWAYS_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
];
/** Tools registered after `initialized` only when the client declares roots, elicitation, sampling. */
const CONDITIONAL_TOOLS = ['get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request'];

/** What one client saw from the moment it was created (listeners attached before connect). */
interface Seen {
  notifications: JsonRpcNotification[];
  logs: LogMessage[];
  updated: string[];
  toolsListChanged: number;
  resourcesListChanged: number;
  promptsListChanged: number;
  disconnected: CloseReason[];
}

let serial = 0;

async function withEverything(
  use: (client: Client, seen: Seen) => Promise<void>,
  options: { handlers?: ClientHandlers } = {},
): Promise<void> {
  const client = new Client({
    name: `everything-${++serial}`,
    transport: { type: 'stdio', command: process.execPath, args: [ENTRY, 'stdio'], stderr: 'discard' },
    requestTimeout: 20_000,
    reconnect: { maxReconnects: 0 },
    handlers: options.handlers ?? {},
  });
  const seen: Seen = {
    notifications: [],
    logs: [],
    updated: [],
    toolsListChanged: 0,
    resourcesListChanged: 0,
    promptsListChanged: 0,
    disconnected: [],
  };
  client.on('notification', (notification) => seen.notifications.push(notification));
  client.on('log', (message) => seen.logs.push(message));
  client.on('resourceUpdated', ({ uri }) => seen.updated.push(uri));
  client.on('toolsListChanged', () => seen.toolsListChanged++);
  client.on('resourcesListChanged', () => seen.resourcesListChanged++);
  client.on('promptsListChanged', () => seen.promptsListChanged++);
  client.on('disconnected', (reason) => seen.disconnected.push(reason));
  const signals: string[] = [];
  const onSignal = (message: unknown) => {
    const { server, signal } = message as { server: string; signal: string };
    if (server === client.name) signals.push(signal);
  };
  dc.subscribe('conduit-mcp:transport:signal', onSignal);
  try {
    await client.connect();
    const pid = client.pid!;
    await use(client, seen);
    assert.deepEqual(seen.disconnected, [], 'the connection was never lost');
    assert.equal(client.state, 'ready');
    await client.close();
    // Nothing the test started (simulated logging, updates, a server request) keeps it alive.
    assert.ok(await waitGroupGone(pid, 10_000), `server ${pid} still runs`);
    assert.deepEqual(signals, [], 'the server exited on stdin EOF, without a signal');
  } finally {
    dc.unsubscribe('conduit-mcp:transport:signal', onSignal);
    await client.close();
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// ---------------------------------------------------------------------------------------------

test('handshake: legacy era, server identity, capabilities; the tools/list_changed burst after initialized arrives as events', async () => {
  let rootsRequests = 0;
  await withEverything(
    async (client, seen) => {
      assert.equal(client.era, 'legacy');
      assert.ok(
        (LEGACY_VERSIONS as readonly string[]).includes(client.protocolVersion!),
        client.protocolVersion,
      );
      assert.equal(client.serverInfo?.name, 'mcp-servers/everything');
      assert.match(client.instructions ?? '', /\S/, 'instructions are read from docs/instructions.md');
      const capabilities = client.serverCapabilities!;
      assert.deepEqual(capabilities.tools, { listChanged: true });
      assert.deepEqual(capabilities.prompts, { listChanged: true });
      assert.deepEqual(capabilities.resources, { subscribe: true, listChanged: true });
      assert.ok(capabilities.logging);
      assert.ok(capabilities.completions);

      // Registering the conditional tools in `oninitialized` makes the SDK send one
      // notifications/tools/list_changed per tool, right after our notifications/initialized.
      const raw = () => seen.notifications.filter((n) => n.method === 'notifications/tools/list_changed');
      await waitFor(() => raw().length >= CONDITIONAL_TOOLS.length, 'the tools/list_changed burst');
      await sleep(100); // any straggler of the burst
      assert.ok(raw().length >= CONDITIONAL_TOOLS.length, `burst of ${raw().length}`);
      assert.equal(seen.toolsListChanged, raw().length, 'one toolsListChanged event per notification');
      assert.equal(seen.resourcesListChanged, 0);
      assert.equal(seen.promptsListChanged, 0);
      // After the burst the list holds the tools it announced.
      const { tools } = await client.listTools();
      for (const name of CONDITIONAL_TOOLS) assert.ok(names(tools).includes(name), name);
      // The last of the post-initialize traffic: roots/list, 350 ms after initialized. (Closing
      // before it would leave the server waiting 60 s for an answer it can no longer get, so it
      // would not exit on stdin EOF and would need SIGTERM.)
      await waitFor(() => rootsRequests >= 1, 'the roots/list request');
    },
    {
      handlers: {
        roots: async () => {
          rootsRequests++;
          return { roots: [] };
        },
        sampling: async () => ({}),
        elicitation: async () => ({ action: 'cancel' }),
      },
    },
  );
});

test('tools: listTools walks every page (one here), schemas are typed, echo and get-sum answer', async () => {
  await withEverything(async (client) => {
    const listed = await client.listTools();
    assert.equal(listed.nextCursor, undefined, 'merged result has no cursor');
    const tools = listed.tools;
    const onePage = (await client.request('tools/list', {})) as { tools: unknown[]; nextCursor?: string };
    assert.equal(onePage.nextCursor, undefined, 'the server does not paginate tools');
    assert.equal(tools.length, onePage.tools.length);
    for (const name of ALWAYS_TOOLS) assert.ok(names(tools).includes(name), `lists ${name}`);
    // No handlers given: no client capability declared, so the conditional tools are absent.
    for (const name of CONDITIONAL_TOOLS) assert.ok(!names(tools).includes(name), `no ${name}`);
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object', tool.name);

    const echo = tools.find((tool) => tool.name === 'echo')!;
    assert.deepEqual(echo.inputSchema.required, ['message']);
    assert.equal(echo.annotations?.readOnlyHint, true);
    const structured = tools.find((tool) => tool.name === 'get-structured-content')!;
    assert.equal(structured.outputSchema?.type, 'object');
    assert.deepEqual(Object.keys(structured.outputSchema?.properties as object).sort(), [
      'conditions',
      'humidity',
      'temperature',
    ]);

    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'héllo, wörld ✓' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'Echo: héllo, wörld ✓' }]);
    assert.equal(
      textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2.5, b: -7 } })),
      'The sum of 2.5 and -7 is -4.5.',
    );
  });
});

test('tools: image, annotations, resource_link, embedded resource (text and blob) and structuredContent blocks', async () => {
  await withEverything(async (client) => {
    const image = await client.callTool({ name: 'get-tiny-image', arguments: {} });
    assert.deepEqual(
      image.content.map((block) => block.type),
      ['text', 'image', 'text'],
    );
    const png = image.content[1]!;
    assert.ok(png.type === 'image');
    assert.equal(png.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(png.data, 'base64').subarray(0, 8), PNG_SIGNATURE, 'a real PNG');

    const annotated = await client.callTool({
      name: 'get-annotated-message',
      arguments: { messageType: 'error', includeImage: true },
    });
    assert.deepEqual(annotated.content[0], {
      type: 'text',
      text: 'Error: Operation failed',
      annotations: { priority: 1, audience: ['user', 'assistant'] },
    });
    assert.equal(annotated.content[1]?.type, 'image');
    assert.deepEqual(annotated.content[1]?.annotations, { priority: 0.5, audience: ['user'] });

    const links = await client.callTool({ name: 'get-resource-links', arguments: { count: 4 } });
    assert.deepEqual(
      links.content.map((block) => block.type),
      ['text', 'resource_link', 'resource_link', 'resource_link', 'resource_link'],
    );
    const first = links.content[1]!;
    assert.ok(first.type === 'resource_link');
    assert.equal(first.uri, 'demo://resource/dynamic/blob/1');
    assert.equal(first.name, 'Blob Resource 1');
    assert.equal(first.mimeType, 'text/plain');
    assert.match(first.description ?? '', /^Resource 1: /);
    const second = links.content[2]!;
    assert.ok(second.type === 'resource_link');
    assert.equal(second.uri, 'demo://resource/dynamic/text/2');
    // A link is readable.
    const linked = await client.readResource({ uri: second.uri });
    assert.match((linked.contents[0] as { text: string }).text, /^Resource 2: This is a plaintext resource/);

    const textReference = await client.callTool({
      name: 'get-resource-reference',
      arguments: { resourceType: 'Text', resourceId: 5 },
    });
    assert.deepEqual(
      textReference.content.map((block) => block.type),
      ['text', 'resource', 'text'],
    );
    const embeddedText = textReference.content[1]!;
    assert.ok(embeddedText.type === 'resource' && 'text' in embeddedText.resource);
    assert.equal(embeddedText.resource.uri, 'demo://resource/dynamic/text/5');
    assert.equal(embeddedText.resource.mimeType, 'text/plain');
    assert.match(embeddedText.resource.text, /^Resource 5: This is a plaintext resource created at /);

    const blobReference = await client.callTool({
      name: 'get-resource-reference',
      arguments: { resourceType: 'Blob', resourceId: 6 },
    });
    const embeddedBlob = blobReference.content[1]!;
    assert.ok(embeddedBlob.type === 'resource' && 'blob' in embeddedBlob.resource);
    assert.equal(embeddedBlob.resource.uri, 'demo://resource/dynamic/blob/6');
    assert.match(
      Buffer.from(embeddedBlob.resource.blob, 'base64').toString('utf8'),
      /^Resource 6: This is a base64 blob created at /,
    );

    const weather = await client.callTool({
      name: 'get-structured-content',
      arguments: { location: 'Chicago' },
    });
    const expected = { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 };
    assert.deepEqual(weather.structuredContent, expected);
    assert.deepEqual(JSON.parse(textOf(weather)), expected, 'the backward-compatible text block agrees');
    // This server has no tool returning audio content: nothing to assert for that block type.
  });
});

test('tool errors are results (isError), protocol errors are McpError rejections', async () => {
  await withEverything(async (client) => {
    // Input validation fails on the server: a result, not a rejection.
    const invalid = await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(invalid.isError, true);
    assert.match(textOf({ content: invalid.content }), /Input validation error.*echo/);
    // The input passes the schema, then the tool's handler throws.
    const thrown = await client.callTool({
      name: 'get-resource-reference',
      arguments: { resourceType: 'Text', resourceId: 0 },
    });
    assert.equal(thrown.isError, true);
    assert.deepEqual(thrown.content, [
      { type: 'text', text: 'Invalid resourceId: 0. Must be a finite positive integer.' },
    ]);
    // The SDK reports an unknown tool as a tool error too.
    const unknown = await client.callTool({ name: 'no-such-tool', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(textOf({ content: unknown.content }), /no-such-tool not found/);

    // Elsewhere a server failure is a JSON-RPC error: McpError with the server's number.
    await assert.rejects(client.getPrompt({ name: 'no-such-prompt' }), (error: unknown) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(typeof error.code, 'number');
      assert.match(error.message, /no-such-prompt/);
      return true;
    });
    await assert.rejects(client.readResource({ uri: 'demo://resource/dynamic/text/0' }), McpError);
    // The connection is still fine.
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'ok' } })), 'Echo: ok');
  });
});

test('progress: trigger-long-running-operation reports every step to onProgress, in order, before the result', async () => {
  await withEverything(async (client) => {
    const updates: Progress[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.8, steps: 4 } },
      { onProgress: (progress) => updates.push(progress) },
    );
    // Every step was delivered by the time the call resolved, in order, token stripped.
    assert.equal(textOf(result), 'Long running operation completed. Duration: 0.8 seconds, Steps: 4.');
    assert.deepEqual(updates, [
      { progress: 1, total: 4 },
      { progress: 2, total: 4 },
      { progress: 3, total: 4 },
      { progress: 4, total: 4 },
    ]);
    // Without onProgress no progressToken is sent, and the server sends no progress.
    const before = updates.length;
    const quiet = await client.callTool({
      name: 'trigger-long-running-operation',
      arguments: { duration: 0.2, steps: 2 },
    });
    assert.match(textOf(quiet), /Steps: 2\./);
    assert.equal(updates.length, before);
  });
});

test('sampling: trigger-sampling-request is answered by handlers.sampling; its errors reach the tool', async () => {
  const calls: Array<{ params: Record<string, unknown>; context: HandlerContext }> = [];
  let fail = false;
  await withEverything(
    async (client) => {
      const result = await client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'What is 6 times 7?', maxTokens: 42 },
      });
      assert.equal(calls.length, 1);
      const [call] = calls;
      assert.deepEqual(call!.params, {
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: 'Resource trigger-sampling-request context: What is 6 times 7?' },
          },
        ],
        systemPrompt: 'You are a helpful test server.',
        maxTokens: 42,
        temperature: 0.7,
      });
      assert.equal(call!.context.server, client.name);
      assert.ok(call!.context.signal instanceof AbortSignal);
      assert.equal(call!.context.signal.aborted, false);
      // The tool returns the CreateMessageResult we answered, as the server parsed it.
      const text = textOf(result);
      assert.match(text, /^LLM sampling result: /);
      assert.deepEqual(JSON.parse(text.slice(text.indexOf('{'))), {
        model: 'conduit-test-model',
        stopReason: 'endTurn',
        role: 'assistant',
        content: { type: 'text', text: 'Forty-two.' },
      });

      // A handler that throws is answered with a JSON-RPC error, which the tool reports.
      fail = true;
      const failed = await client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'again' },
      });
      assert.equal(failed.isError, true);
      assert.match(textOf({ content: failed.content }), /the model is unavailable/);
      assert.equal(calls.length, 2);
    },
    {
      handlers: {
        sampling: async (params, context) => {
          calls.push({ params, context });
          if (fail) throw new Error('the model is unavailable');
          return {
            role: 'assistant',
            content: { type: 'text', text: 'Forty-two.' },
            model: 'conduit-test-model',
            stopReason: 'endTurn',
          };
        },
      },
    },
  );
});

test('elicitation: trigger-elicitation-request is answered by handlers.elicitation (accept, then decline)', async () => {
  const calls: Array<Record<string, unknown>> = [];
  const answers: unknown[] = [
    {
      action: 'accept',
      content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 },
    },
    { action: 'decline' },
  ];
  await withEverything(
    async (client) => {
      const accepted = textOf(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
      assert.equal(calls.length, 1);
      const params = calls[0] as {
        message: string;
        requestedSchema: { type: string; properties: Record<string, unknown>; required: string[] };
      };
      assert.equal(params.message, 'Please provide inputs for the following fields:');
      assert.equal(params.requestedSchema.type, 'object');
      assert.deepEqual(params.requestedSchema.required, ['name']);
      assert.ok('email' in params.requestedSchema.properties);
      assert.match(accepted, /User provided the requested information/);
      assert.match(accepted, /- Name: Ada Lovelace/);
      assert.match(accepted, /- Agreed to terms: true/);
      assert.match(accepted, /- Email: ada@example\.com/);
      assert.match(accepted, /- Favorite Integer: 7/);

      const declined = textOf(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
      assert.equal(calls.length, 2);
      assert.match(declined, /User declined to provide the requested information/);
    },
    {
      handlers: {
        elicitation: async (params) => {
          calls.push(params);
          return answers.shift();
        },
      },
    },
  );
});

test('roots: the server asks handlers.roots after initialized, and again after notifications/roots/list_changed', async () => {
  const calls: Array<{ params: Record<string, unknown>; context: HandlerContext }> = [];
  let roots = [{ uri: 'file:///srv/project', name: 'project' }];
  await withEverything(
    async (client, seen) => {
      // server/roots.ts: syncRoots runs 350 ms after initialized, then logs what it received.
      await waitFor(() => calls.length >= 1, 'the roots/list request');
      assert.deepEqual(calls[0]!.params, {});
      assert.equal(calls[0]!.context.server, client.name);
      const received = (count: number) =>
        seen.logs.some(
          (log) =>
            log.logger === 'everything-server' &&
            log.data === `Roots updated: ${count} root(s) received from client`,
        );
      await waitFor(() => received(1), 'the server logging the roots it received');
      const listed = textOf(await client.callTool({ name: 'get-roots-list', arguments: {} }));
      assert.match(listed, /Current MCP Roots \(1 total\)/);
      assert.match(listed, /1\. project\n {3}URI: file:\/\/\/srv\/project/);

      roots = [...roots, { uri: 'file:///srv/other', name: 'other' }];
      client.notify('notifications/roots/list_changed');
      await waitFor(() => calls.length >= 2, 'roots/list again after list_changed');
      await waitFor(() => received(2), 'the server logging the new roots');
      assert.match(
        textOf(await client.callTool({ name: 'get-roots-list', arguments: {} })),
        /Current MCP Roots \(2 total\)[\s\S]*2\. other\n {3}URI: file:\/\/\/srv\/other/,
      );
      assert.equal(calls.length, 2, 'get-roots-list uses the roots it has, without asking again');
    },
    {
      handlers: {
        roots: async (params, context) => {
          calls.push({ params, context });
          return { roots };
        },
      },
    },
  );
});

test('logging: setLogLevel reaches the server (it filters by it); the simulated log stream arrives as log events', async () => {
  await withEverything(async (client, seen) => {
    // The subscribe/unsubscribe handlers log at info before answering, so by the time the call
    // resolves their message has arrived, or was filtered out by the level we set.
    const uri = 'demo://resource/dynamic/text/1';
    await client.setLogLevel('warning');
    await client.subscribeResource(uri);
    assert.ok(!seen.logs.some((log) => String(log.data).includes('Subscribe')), 'info filtered at warning');
    await client.setLogLevel('debug');
    await client.unsubscribeResource(uri);
    const ack = seen.logs.find((log) => String(log.data).includes('Unsubscribe'));
    assert.deepEqual(ack, { level: 'info', data: `Received Unsubscribe Resource request: ${uri} ` });

    // toggle-simulated-logging sends one message at once, then one every 5 s, at random levels.
    const simulated = () => seen.logs.filter((log) => /^\w+[ -]level[ -]message/i.test(String(log.data)));
    const started = textOf(await client.callTool({ name: 'toggle-simulated-logging', arguments: {} }));
    try {
      assert.match(started, /^Started simulated, random-leveled logging/);
      await waitFor(() => simulated().length >= 2, 'two simulated log messages (5 s apart)', 20_000);
    } finally {
      const stopped = textOf(await client.callTool({ name: 'toggle-simulated-logging', arguments: {} }));
      assert.match(stopped, /^Stopped simulated logging/);
    }
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
    for (const log of simulated()) {
      assert.ok(levels.includes(log.level), log.level);
      assert.equal(typeof log.data, 'string');
    }
    // Every notifications/message became exactly one log event.
    assert.equal(
      seen.logs.length,
      seen.notifications.filter((n) => n.method === 'notifications/message').length,
    );
  });
});

test('resources: listResources, listResourceTemplates, readResource of text, blob and static documents', async () => {
  await withEverything(async (client) => {
    const documents = readdirSync(DOCS).sort();
    const { resources, nextCursor } = await client.listResources();
    assert.equal(nextCursor, undefined);
    const onePage = (await client.request('resources/list', {})) as {
      resources: unknown[];
      nextCursor?: string;
    };
    assert.equal(onePage.nextCursor, undefined, 'the server does not paginate resources');
    assert.equal(resources.length, onePage.resources.length);
    assert.deepEqual(
      resources.map((resource) => resource.uri).sort(),
      documents.map((name) => `demo://resource/static/document/${encodeURIComponent(name)}`).sort(),
    );
    for (const resource of resources) assert.equal(resource.mimeType, 'text/markdown', resource.uri);

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((template) => [template.name, template.uriTemplate, template.mimeType]).sort(),
      [
        ['Dynamic Blob Resource', 'demo://resource/dynamic/blob/{resourceId}', 'application/octet-stream'],
        ['Dynamic Text Resource', 'demo://resource/dynamic/text/{resourceId}', 'text/plain'],
      ],
    );

    const text = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    assert.equal(text.contents.length, 1);
    const textContents = text.contents[0]!;
    assert.ok('text' in textContents);
    assert.equal(textContents.uri, 'demo://resource/dynamic/text/7');
    assert.equal(textContents.mimeType, 'text/plain');
    assert.match(textContents.text, /^Resource 7: This is a plaintext resource created at /);

    const blob = await client.readResource({ uri: 'demo://resource/dynamic/blob/3' });
    const blobContents = blob.contents[0]!;
    assert.ok('blob' in blobContents && !('text' in blobContents));
    assert.equal(blobContents.uri, 'demo://resource/dynamic/blob/3');
    assert.match(
      Buffer.from(blobContents.blob, 'base64').toString('utf8'),
      /^Resource 3: This is a base64 blob created at /,
    );

    // A static document arrives byte for byte (UTF-8 punctuation included).
    const read = await client.readResource({ uri: 'demo://resource/static/document/features.md' });
    assert.deepEqual(read.contents, [
      {
        uri: 'demo://resource/static/document/features.md',
        mimeType: 'text/markdown',
        text: readFileSync(path.join(DOCS, 'features.md'), 'utf8'),
      },
    ]);
  });
});

test('resource subscriptions: resourceUpdated events for subscribed URIs only, periodic, and none after unsubscribe', async () => {
  await withEverything(async (client, seen) => {
    const first = 'demo://resource/dynamic/text/11';
    const second = 'demo://resource/static/document/architecture.md';
    const toggle = async (expected: RegExp) =>
      assert.match(
        textOf(await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} })),
        expected,
      );

    await client.subscribeResource(first);
    // toggle-subscriber-updates sends one round at once (before its result), then every 5 s.
    await toggle(/^Started simulated resource updated notifications/);
    try {
      assert.deepEqual(seen.updated, [first], 'the immediate round');
      await waitFor(() => seen.updated.length >= 2, 'the periodic round (5 s)', 20_000);
    } finally {
      await toggle(/^Stopped simulated resource updates/);
    }
    assert.ok(
      seen.updated.every((uri) => uri === first),
      seen.updated.join(),
    );

    await client.unsubscribeResource(first);
    await client.subscribeResource(second);
    const before = seen.updated.length;
    await toggle(/^Started/);
    try {
      // The immediate round covers exactly what we are subscribed to now.
      assert.deepEqual(seen.updated.slice(before), [second]);
    } finally {
      await toggle(/^Stopped/);
    }
    await client.unsubscribeResource(second);
    const raw = seen.notifications.filter((n) => n.method === 'notifications/resources/updated');
    assert.equal(raw.length, seen.updated.length, 'one resourceUpdated per notification');
  });
});

test('prompts: listPrompts, getPrompt with arguments and an embedded resource; complete() for prompts and templates', async () => {
  await withEverything(async (client, seen) => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(names(prompts).sort(), [
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
      'simple-prompt',
    ]);
    const args = prompts.find((prompt) => prompt.name === 'args-prompt')!;
    assert.deepEqual(
      args.arguments?.map(({ name, required }) => [name, required]),
      [
        ['city', true],
        ['state', false],
      ],
    );

    const simple = await client.getPrompt({ name: 'simple-prompt' });
    assert.deepEqual(simple.messages, [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
    ]);
    const weather = await client.getPrompt({
      name: 'args-prompt',
      arguments: { city: 'Austin', state: 'TX' },
    });
    assert.deepEqual(weather.messages, [
      { role: 'user', content: { type: 'text', text: "What's weather in Austin, TX?" } },
    ]);
    const embedded = await client.getPrompt({
      name: 'resource-prompt',
      arguments: { resourceType: 'Blob', resourceId: '9' },
    });
    assert.equal(embedded.messages.length, 2);
    const resource = embedded.messages[1]!.content;
    assert.ok(resource.type === 'resource' && 'blob' in resource.resource);
    assert.equal(resource.resource.uri, 'demo://resource/dynamic/blob/9');
    // A missing required argument is refused before anything is sent.
    await assert.rejects(
      client.getPrompt({ name: 'args-prompt', arguments: {} }),
      (error) => error instanceof UsageError && /needs the argument city/.test(error.message),
    );

    const department = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    assert.deepEqual(department.completion.values, ['Sales', 'Support']);
    const person = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Marketing' } },
    });
    assert.deepEqual(person.completion.values, ['Grace', 'Henry', 'Iris'], 'completion context is sent');
    const resourceType = await client.complete({
      ref: { type: 'ref/prompt', name: 'resource-prompt' },
      argument: { name: 'resourceType', value: 'B' },
    });
    assert.deepEqual(resourceType.completion.values, ['Blob']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '42' },
    });
    assert.deepEqual(template.completion.values, ['42']);
    const notAnId = await client.complete({
      ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/blob/{resourceId}' },
      argument: { name: 'resourceId', value: 'x' },
    });
    assert.deepEqual(notAnId.completion.values, []);
    assert.equal(seen.promptsListChanged, 0, 'this server never changes its prompts');
  });
});

test('large results: a gzip blob over 1 MB on one stdout line arrives whole, in a tool result and a resource read', async () => {
  await withEverything(async (client, seen) => {
    // Random bytes do not compress: the base64 gzip in the answer is about 2 MB on one line.
    const original = randomBytes(1_500_000);
    const name = 'random.bin.gz';
    const result = await client.callTool({
      name: 'gzip-file-as-resource',
      arguments: {
        name,
        data: `data:application/octet-stream;base64,${original.toString('base64')}`,
        outputType: 'resource',
      },
    });
    assert.notEqual(result.isError, true, JSON.stringify(result.content).slice(0, 500));
    assert.equal(result.content.length, 1);
    const block = result.content[0]!;
    assert.ok(block.type === 'resource' && 'blob' in block.resource);
    assert.equal(block.resource.uri, `demo://resource/session/${name}`);
    assert.equal(block.resource.mimeType, 'application/gzip');
    assert.ok(block.resource.blob.length > 1_900_000, `blob of ${block.resource.blob.length} characters`);
    assert.ok(gunzipSync(Buffer.from(block.resource.blob, 'base64')).equals(original), 'every byte arrived');

    // The tool registered a session resource: the server announces it, and it can be read back.
    await waitFor(() => seen.resourcesListChanged >= 1, 'resourcesListChanged');
    const { resources } = await client.listResources();
    assert.ok(resources.some((resource) => resource.uri === `demo://resource/session/${name}`));
    const read = await client.readResource({ uri: `demo://resource/session/${name}` });
    const contents = read.contents[0]!;
    assert.ok('blob' in contents);
    assert.equal(contents.blob, block.resource.blob);
  });
});
