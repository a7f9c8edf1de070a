// conduit-mcp serve over stdio: a host (conduit-mcp's own Client, the official SDK client) sees
// three servers as one, its calls routed, progress passed on and its cancellation reaching the
// server behind; filters hide and refuse tools.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client, McpError, type ProtocolMode } from '../../src/index.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { bin, needsBuild, threeServerConfig } from './helpers.js';

guardProcesses();
needsBuild();

function gatewayClient(args: string[], protocol: ProtocolMode = 'auto'): Client {
  return new Client({
    name: 'gateway',
    protocol,
    transport: { type: 'stdio', command: process.execPath, args: [bin, 'serve', ...args], stderr: 'discard' },
    connectTimeout: 30_000,
    requestTimeout: 30_000,
  });
}

// A legacy host's tool calls take the gateway's direct path (src/serve/direct-calls.ts), a modern
// host's the library's: both are run.
for (const protocol of ['modern', 'legacy'] as const) {
  test(`three servers as one (a ${protocol} host): tools, prompts and resources merged under pool names, and each call routed`, async () => {
    const directory = temporaryDirectory();
    const config = threeServerConfig(directory, path.join(directory, 'fx.log'));
    await using client = gatewayClient(['--config', config], protocol);
    await client.connect();
    assert.equal(client.era, protocol);
    assert.equal(client.serverInfo?.name, 'conduit-mcp');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['demo__add', 'demo__countdown', 'fx__echo', 'fx__slow', 'memory__read_graph']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    const add = (await client.listTools()).tools.find((tool) => tool.name === 'demo__add')!;
    assert.deepEqual(add.outputSchema, {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
    const sum = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    const echo = await client.callTool({ name: 'fx__echo', arguments: { text: 'hi' } });
    assert.match(JSON.stringify(echo.content), /hi/);
    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    assert.notEqual(graph.isError, true);
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    assert.ok(prompts.includes('fx__greet'), prompts.join(', '));
    const { resources } = await client.listResources();
    assert.ok(resources.some((resource) => resource.uri === 'file:///a.txt'));
    const read = await client.readResource({ uri: 'file:///a.txt' });
    assert.ok(read.contents.length > 0);
    await assert.rejects(client.callTool({ name: 'nobody__here', arguments: {} }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Unknown tool: nobody__here/);
      return true;
    });
  });

  test(`progress passes through to a ${protocol} host, and the host cancelling reaches the server behind`, async () => {
    const directory = temporaryDirectory();
    const record = path.join(directory, 'fx.log');
    await using client = gatewayClient(['--config', threeServerConfig(directory, record)], protocol);
    await client.connect();
    // Calls before and after: the gateway reuses the controllers of calls that ended, never one aborted.
    for (let i = 0; i < 3; i++)
      await client.callTool({ name: 'fx__echo', arguments: { text: `before ${i}` } });
    const stop = new AbortController();
    const seen: number[] = [];
    const call = client.callTool(
      { name: 'fx__slow', arguments: { steps: 200, interval: 100 } },
      {
        signal: stop.signal,
        onProgress: (progress) => {
          seen.push(progress.progress);
          if (seen.length === 2) stop.abort();
        },
      },
    );
    await assert.rejects(call, { name: 'AbortError' });
    assert.deepEqual(seen, [1, 2]);
    // The fixture records every line it reads: the gateway's Client sent the cancellation on.
    await waitFor(
      () => /"notifications\/cancelled"/.test(readFileSync(record, 'utf8')),
      'the cancellation at the server',
      10_000,
    );
    const cancelled = readFileSync(record, 'utf8')
      .split('\n')
      .filter((line) => line.includes('notifications/cancelled'));
    assert.equal(cancelled.length, 1);
    for (let i = 0; i < 3; i++) {
      const after = await client.callTool({ name: 'fx__echo', arguments: { text: `after ${i}` } });
      assert.match(JSON.stringify(after.content), new RegExp(`after ${i}`));
    }
    const slowAgain = client.callTool({ name: 'fx__slow', arguments: { steps: 2, interval: 20 } });
    assert.notEqual((await slowAgain).isError, true);
    assert.equal(readFileSync(record, 'utf8').split('notifications/cancelled').length - 1, 1);
  });

  test(`a server that is down fails its own tools with a clear error, not the gateway (a ${protocol} host)`, async () => {
    const directory = temporaryDirectory();
    await using client = gatewayClient(
      ['--config', threeServerConfig(directory, path.join(directory, 'fx.log'))],
      protocol,
    );
    await client.connect();
    const crashed = await client.callTool({ name: 'fx__crash', arguments: {} });
    assert.equal(crashed.isError, true, JSON.stringify(crashed));
    assert.match(JSON.stringify(crashed.content), /conduit-mcp gateway: .*fx/);
    // The other servers and the session go on.
    const sum = await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
    assert.deepEqual(sum.structuredContent, { sum: 3 });
  });
}

test('filters: --deny and --allow on pool names, denyTools in the entry; a hidden tool is refused, not run', async () => {
  const directory = temporaryDirectory();
  const record = path.join(directory, 'fx.log');
  const config = threeServerConfig(directory, record, { denyTools: ['crash'] });
  {
    await using client = gatewayClient(['--config', config, '--deny', 'demo__count*', '--deny', 'memory__*']);
    await client.connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('demo__add') && names.includes('fx__echo'), names.join(', '));
    for (const hidden of ['demo__countdown', 'fx__crash', 'memory__read_graph']) {
      assert.ok(!names.includes(hidden), `${hidden} hidden: ${names.join(', ')}`);
    }
    await assert.rejects(client.callTool({ name: 'fx__crash', arguments: {} }), /Unknown tool: fx__crash/);
    // The server behind never got the call: it is up, and it never read a crash request.
    assert.match(
      JSON.stringify((await client.callTool({ name: 'fx__echo', arguments: { n: 1 } })).content),
      /1/,
    );
    assert.doesNotMatch(readFileSync(record, 'utf8'), /"crash"/);
  }
  {
    await using client = gatewayClient(['--config', config, '--allow', 'fx__e*']);
    await client.connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, ['fx__echo', 'fx__end-listen', 'fx__env']);
  }
});

test('the official SDK client (1.x) connects over stdio, lists the merged tools and calls three servers', async () => {
  const directory = temporaryDirectory();
  const config = threeServerConfig(directory, path.join(directory, 'fx.log'));
  const sdk = new SdkClient({ name: 'sdk-host', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--config', config],
    stderr: 'ignore',
  });
  await sdk.connect(transport);
  try {
    const { tools } = await sdk.listTools();
    assert.ok(tools.some((tool) => tool.name === 'memory__create_entities'));
    const sum = await sdk.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } });
    assert.deepEqual(sum.structuredContent, { sum: 2 });
    const echo = await sdk.callTool({ name: 'fx__echo', arguments: { x: 'y' } });
    assert.match(JSON.stringify(echo.content), /y/);
    const created = await sdk.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'gateway', entityType: 'test', observations: ['seen'] }] },
    });
    assert.notEqual(created.isError, true);
  } finally {
    await sdk.close();
  }
});

test('the official SDK client (1.x) gets the progress of a call through the gateway', async () => {
  // The 1.x client handles a notification a microtask after the read that brought it, a response at
  // once: a progress notification read in the same chunk as its result is dropped by it, whoever
  // sends them. The server here answers well after its last progress, so only the gateway is tested.
  const file = path.join(temporaryDirectory(), 'tools.txt');
  writeFileSync(file, '');
  const sdk = new SdkClient({ name: 'sdk-host', version: '1.0.0' });
  await sdk.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        bin,
        'serve',
        '--',
        process.execPath,
        path.join(import.meta.dirname, 'fixtures/tools-from-file.mjs'),
        file,
      ],
      stderr: 'ignore',
    }),
  );
  try {
    const progress: number[] = [];
    await sdk.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    assert.deepEqual(progress, [1, 2, 3]);
  } finally {
    await sdk.close();
  }
});

test('progress sent on reaches the host before the result, in a burst too (the last one included)', async () => {
  // A plain host reading lines: what the gateway writes, in the order it writes it.
  const child = spawn(process.execPath, [bin, 'serve', '--', process.execPath, fixture('mcp.mjs')], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const lines = createInterface({ input: child.stdout });
  const messages: { id?: number; method?: string; params?: { progress: number } }[] = [];
  lines.on('line', (line) => messages.push(JSON.parse(line)));
  const answered = (id: number) =>
    waitFor(() => messages.some((m) => m.id === id), `the answer ${id}`, 30_000);
  try {
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await answered(1);
    send({ method: 'notifications/initialized' });
    // progress-burst is not in the fixture's list: one server under its own names passes it on.
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'progress-burst', arguments: { count: 50 }, _meta: { progressToken: 'p' } },
    });
    await answered(2);
    const progress = messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params!.progress);
    const resultAt = messages.findIndex((m) => m.id === 2);
    assert.ok(
      messages.slice(resultAt).every((m) => m.method !== 'notifications/progress'),
      'no progress after the result',
    );
    // The gateway's Client passes on the first 16 of a burst and then the latest (src/client/progress.ts).
    assert.deepEqual(progress, [...Array.from({ length: 16 }, (_, i) => i + 1), 50]);
  } finally {
    child.stdin.end();
  }
});
