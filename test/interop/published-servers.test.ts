// Interop with published MCP servers (dev dependencies), through the public Client: the
// dual-era server SDK (`@modelcontextprotocol/server`, `serveStdio`) must reach the modern era;
// server-everything, server-filesystem and server-memory (legacy) the legacy one. Each also runs
// behind an npx-style launcher that keeps the real server as a grandchild, and every test checks
// that closing the client leaves no process of the server's group running.
import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Client, type ClientOptions, LEGACY_VERSIONS, type StdioOptions } from '../../src/index.js';
import { liveGroupMembers, readProcStat } from '../../src/transport/stdio/process-group.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses, isRunning, waitGroupGone } from '../helpers/processes.js';

guardProcesses();

const root = path.resolve(import.meta.dirname, '../..');
const directory = temporaryDirectory();

/** The entry file a published package's `bin` names. */
function serverBin(name: string): string {
  const packageDirectory = path.join(root, 'node_modules', '@modelcontextprotocol', name);
  const { bin } = JSON.parse(readFileSync(path.join(packageDirectory, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return path.join(packageDirectory, typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}

const EVERYTHING = serverBin('server-everything');
const FILESYSTEM = serverBin('server-filesystem');
const MEMORY = serverBin('server-memory');
const DUAL_ERA = fixture('sdk-dual-era.mjs');

type Launch = 'direct' | 'launcher';

/**
 * How to start a server script: with this Node directly, or through `launch.sh`, a shell that
 * stays the parent of the real server (as `npx` does), so the server is a grandchild.
 */
function launch(how: Launch, script: string, args: string[] = [], env: Record<string, string> = {}) {
  const quiet = { stderr: 'discard', stdinGrace: 5000, termGrace: 2000 } as const;
  if (how === 'direct') return { command: process.execPath, args: [script, ...args], env, ...quiet };
  return {
    command: fixture('launch.sh'),
    args: [script, ...args],
    env: { ...env, LAUNCH_NODE: process.execPath },
    ...quiet,
  };
}

let serial = 0;

/**
 * Connects a client to the server, runs `use`, then closes the client and proves the shutdown
 * was clean: every process of the group seen while connected (the launcher and the real server
 * under it) is gone, none was signalled (they all exit on stdin EOF), and the group is empty.
 */
async function withServer(
  transport: StdioOptions,
  use: (client: Client) => Promise<void>,
  options: { launcher?: boolean; client?: Partial<ClientOptions> } = {},
): Promise<void> {
  const name = `interop-${++serial}`;
  const signals: string[] = [];
  const onSignal = (message: unknown) => {
    const { server, signal } = message as { server: string; signal: string };
    if (server === name) signals.push(signal);
  };
  dc.subscribe('conduit-mcp:transport:signal', onSignal);
  const client = new Client({
    name,
    transport: { type: 'stdio', ...transport },
    // protocol 'auto' (the default), with room for a slow start on a busy machine: a server that
    // misses the probe gets initialize behind it, and a dual-era one then (rightly) goes legacy.
    probeTimeout: 15_000,
    requestTimeout: 20_000,
    reconnect: { maxReconnects: 0 },
    ...options.client,
  });
  try {
    await client.connect();
    const pgid = client.pid!;
    assert.ok(pgid > 0);
    await use(client);
    const members = liveGroupMembers(pgid);
    assert.ok(members.includes(pgid), `the server (${pgid}) leads its own group: ${members.join(', ')}`);
    if (options.launcher) {
      const children = members.filter((pid) => readProcStat(pid)?.ppid === pgid);
      assert.ok(
        children.length >= 1,
        `the launcher's group holds the real server under it: ${members.join(', ')}`,
      );
    }
    const closing = performance.now();
    await client.close();
    assert.equal(client.state, 'closed');
    assert.ok(await waitGroupGone(pgid, 20_000), `group ${pgid} still runs: ${liveGroupMembers(pgid)}`);
    const took = performance.now() - closing;
    for (const pid of members) assert.equal(isRunning(pid), false, `pid ${pid} of group ${pgid} still runs`);
    assert.deepEqual(liveGroupMembers(pgid), []);
    assert.deepEqual(signals, [], `exited on stdin EOF without a signal (took ${took.toFixed(0)} ms)`);
  } finally {
    dc.unsubscribe('conduit-mcp:transport:signal', onSignal);
    await client.close();
  }
}

type ToolResult = { content?: Array<{ type: string; text?: string }>; isError?: boolean };

/** The text of a successful tool call. */
function textOf(result: Record<string, unknown>): string {
  const { content, isError } = result as ToolResult;
  assert.notEqual(isError, true, `the tool failed: ${JSON.stringify(content)}`);
  return (content ?? []).map((block) => block.text ?? '').join('');
}

function names(list: unknown): string[] {
  return (list as Array<{ name: string }>).map((item) => item.name);
}

// ---------------------------------------------------------------------------------------------
// Dual-era server on @modelcontextprotocol/server (serveStdio)

test('dual-era SDK server: auto reaches the modern era; tools, progress, resources, prompts', async () => {
  await withServer(launch('direct', DUAL_ERA), async (client) => {
    assert.equal(client.era, 'modern');
    assert.equal(client.protocolVersion, '2026-07-28');
    assert.equal(client.serverInfo?.name, 'sdk-dual-era');
    assert.ok(client.serverCapabilities?.tools, 'declares tools');

    const { tools } = await client.listTools();
    assert.deepEqual(names(tools).sort(), ['count', 'echo', 'era', 'last-count']);
    assert.equal(
      textOf(await client.callTool({ name: 'era', arguments: {} })),
      'modern',
      'the server agrees',
    );
    assert.equal(
      textOf(await client.callTool({ name: 'echo', arguments: { text: 'héllo, wörld' } })),
      'héllo, wörld',
    );

    const progress: number[] = [];
    const counted = await client.callTool(
      { name: 'count', arguments: { steps: 3 } },
      { onProgress: (update) => progress.push(update.progress) },
    );
    assert.equal(textOf(counted), 'counted 3');
    assert.deepEqual(progress, [1, 2, 3]);

    const { resources } = await client.listResources();
    assert.deepEqual(names(resources), ['greeting']);
    const read = (await client.readResource({ uri: 'memo://greeting' })) as {
      contents: Array<{ uri: string; text: string }>;
    };
    assert.deepEqual(read.contents[0], {
      uri: 'memo://greeting',
      mimeType: 'text/plain',
      text: 'hello from the SDK',
    });

    const { prompts } = await client.listPrompts();
    assert.deepEqual(names(prompts), ['greet']);
    const prompt = (await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })) as {
      messages: Array<{ content: { text: string } }>;
    };
    assert.equal(prompt.messages[0]?.content.text, 'Say hello to Ada');
  });
});

test('dual-era SDK server, modern era: aborting a call cancels it on the server; the next call works', async () => {
  await withServer(launch('direct', DUAL_ERA), async (client) => {
    assert.equal(client.era, 'modern');
    const controller = new AbortController();
    await assert.rejects(
      client.callTool(
        { name: 'count', arguments: { steps: 200, delayMs: 20 } },
        { signal: controller.signal, onProgress: () => controller.abort(new Error('enough')) },
      ),
      (error: Error) => error.name === 'AbortError',
    );
    // notifications/cancelled reached the SDK, which aborted the handler's signal.
    const deadline = Date.now() + 10_000;
    let last: { done: number; steps: number; aborted: boolean };
    for (;;) {
      last = JSON.parse(textOf(await client.callTool({ name: 'last-count', arguments: {} })));
      if (last.aborted || Date.now() > deadline) break;
      await sleep(20);
    }
    assert.equal(last.aborted, true, `the server saw the cancellation: ${JSON.stringify(last)}`);
    assert.ok(last.done < last.steps, `stopped early: ${JSON.stringify(last)}`);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after' } })), 'after');
  });
});

test('dual-era SDK server: protocol legacy gets the initialize handshake from the same server', async () => {
  await withServer(
    launch('direct', DUAL_ERA),
    async (client) => {
      assert.equal(client.era, 'legacy');
      assert.ok((LEGACY_VERSIONS as readonly string[]).includes(client.protocolVersion!));
      assert.equal(client.serverInfo?.name, 'sdk-dual-era');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'old' } })), 'old');
    },
    { client: { protocol: 'legacy' } },
  );
});

test('dual-era SDK server answering after the probe timeout: client and server agree on the era', async () => {
  // A slow start (a cold npx) misses probeTimeout, so the client sends initialize behind the probe;
  // serveStdio answers the probe, then pins the connection to legacy on initialize.
  await withServer(
    launch('direct', DUAL_ERA),
    async (client) => {
      const serverEra = textOf(await client.callTool({ name: 'era', arguments: {} }));
      assert.equal(client.era, serverEra, `client ${client.era}, server ${serverEra}`);
      assert.equal(client.era, 'legacy');
      assert.ok((LEGACY_VERSIONS as readonly string[]).includes(client.protocolVersion!));
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'late' } })), 'late');
    },
    { client: { probeTimeout: 1 } },
  );
});

test('modern-only SDK server answering after the probe timeout: the late DiscoverResult wins', async () => {
  await withServer(
    launch('direct', DUAL_ERA, ['--modern-only']),
    async (client) => {
      assert.equal(client.era, 'modern');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.equal(textOf(await client.callTool({ name: 'era', arguments: {} })), 'modern');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'late' } })), 'late');
    },
    { client: { probeTimeout: 1 } },
  );
});

test('dual-era SDK server behind a launcher: modern era, echo, whole tree gone on close', async () => {
  await withServer(
    launch('launcher', DUAL_ERA),
    async (client) => {
      assert.equal(client.era, 'modern');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'via sh' } })), 'via sh');
    },
    { launcher: true },
  );
});

// ---------------------------------------------------------------------------------------------
// server-everything (legacy)

async function everything(client: Client): Promise<void> {
  assert.equal(client.era, 'legacy');
  assert.ok(
    (LEGACY_VERSIONS as readonly string[]).includes(client.protocolVersion!),
    `a legacy version: ${client.protocolVersion}`,
  );
  assert.equal(client.serverInfo?.name, 'mcp-servers/everything');
  const { tools } = await client.listTools();
  assert.ok(names(tools).includes('echo'), `tools: ${names(tools)}`);
  assert.equal(
    textOf(await client.callTool({ name: 'echo', arguments: { message: 'hi there' } })),
    'Echo: hi there',
  );
}

test('server-everything: auto falls back to the legacy era; echo; progress on a long operation', async () => {
  await withServer(launch('direct', EVERYTHING, ['stdio']), async (client) => {
    await everything(client);
    const progress: Array<[number, number | undefined]> = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onProgress: (update) => progress.push([update.progress, update.total]) },
    );
    assert.match(textOf(result), /completed/);
    assert.deepEqual(progress, [
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});

test('server-everything behind a launcher: legacy era, echo, whole tree gone on close', async () => {
  await withServer(launch('launcher', EVERYTHING, ['stdio']), everything, { launcher: true });
});

test('server-everything through npm exec --offline (npm -> sh -> node): whole tree gone on close', async () => {
  await withServer(
    {
      command: 'npm',
      args: ['exec', '--offline', '--', 'mcp-server-everything', 'stdio'],
      cwd: root,
      stderr: 'discard',
      stdinGrace: 5000,
      termGrace: 2000,
    },
    everything,
    { launcher: true },
  );
});

// ---------------------------------------------------------------------------------------------
// server-filesystem (legacy)

function filesystemScenario(folder: string) {
  return async (client: Client) => {
    assert.equal(client.era, 'legacy');
    const file = path.join(folder, 'notes', 'hello.txt');
    const content = `line one\nline two: ${folder}\n`;
    textOf(await client.callTool({ name: 'create_directory', arguments: { path: path.dirname(file) } }));
    textOf(await client.callTool({ name: 'write_file', arguments: { path: file, content } }));
    assert.equal(readFileSync(file, 'utf8'), content, 'the file really is on disk');
    assert.equal(
      textOf(await client.callTool({ name: 'read_text_file', arguments: { path: file } })),
      content,
    );
    const listing = textOf(await client.callTool({ name: 'list_directory', arguments: { path: folder } }));
    assert.equal(listing, '[DIR] notes');
    const inner = textOf(
      await client.callTool({ name: 'list_directory', arguments: { path: path.dirname(file) } }),
    );
    assert.equal(inner, '[FILE] hello.txt');
    const outside = (await client.callTool({
      name: 'read_text_file',
      arguments: { path: '/etc/hostname' },
    })) as ToolResult;
    assert.equal(outside.isError, true, 'a path outside the allowed directory is refused');
  };
}

for (const how of ['direct', 'launcher'] as const) {
  test(`server-filesystem (${how}): write, read back and list files in a temp folder`, async () => {
    const folder = path.join(directory, `files-${how}`);
    mkdirSync(folder);
    await withServer(launch(how, FILESYSTEM, [folder]), filesystemScenario(folder), {
      launcher: how === 'launcher',
    });
  });
}

test('server-filesystem with no folder argument takes its folder from our roots handler', async () => {
  const folder = realpathSync(directory);
  const rootsFolder = path.join(folder, 'from-roots');
  mkdirSync(rootsFolder);
  let asked = 0;
  await withServer(
    launch('direct', FILESYSTEM),
    async (client) => {
      // The server asks roots/list right after notifications/initialized; wait until it applied them.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const allowed = textOf(await client.callTool({ name: 'list_allowed_directories', arguments: {} }));
        if (allowed.includes(rootsFolder)) break;
        assert.ok(Date.now() < deadline, `roots never applied: ${allowed}`);
        await sleep(50);
      }
      assert.ok(asked >= 1);
      await filesystemScenario(rootsFolder)(client);
    },
    {
      client: {
        handlers: {
          roots: async () => {
            asked++;
            return { roots: [{ uri: pathToFileURL(rootsFolder).href, name: 'test folder' }] };
          },
        },
      },
    },
  );
});

// ---------------------------------------------------------------------------------------------
// server-memory (legacy)

for (const how of ['direct', 'launcher'] as const) {
  test(`server-memory (${how}): create an entity and read it back`, async () => {
    const memoryFile = path.join(directory, `memory-${how}.jsonl`);
    await withServer(
      launch(how, MEMORY, [], { MEMORY_FILE_PATH: memoryFile }),
      async (client) => {
        assert.equal(client.era, 'legacy');
        assert.ok((LEGACY_VERSIONS as readonly string[]).includes(client.protocolVersion!));
        const entity = {
          name: 'Ada Lovelace',
          entityType: 'person',
          observations: ['wrote the first program'],
        };
        const created = await client.callTool({ name: 'create_entities', arguments: { entities: [entity] } });
        assert.deepEqual((created as { structuredContent?: unknown }).structuredContent, {
          entities: [entity],
        });
        const opened = await client.callTool({ name: 'open_nodes', arguments: { names: ['Ada Lovelace'] } });
        assert.deepEqual((opened as { structuredContent?: unknown }).structuredContent, {
          entities: [entity],
          relations: [],
        });
        assert.ok(existsSync(memoryFile), 'the graph was saved to MEMORY_FILE_PATH');
        assert.match(readFileSync(memoryFile, 'utf8'), /Ada Lovelace/);
      },
      { launcher: how === 'launcher' },
    );
  });
}
