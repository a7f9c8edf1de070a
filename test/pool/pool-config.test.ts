// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${VAR} literally
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ClientPool, type ServerStatus, ServerUnavailableError } from '../../src/index.js';
import { startSdkV1 } from '../fixtures/http/sdk-servers.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { textOf } from '../helpers/wait.js';
import { MODEL_SAFE, node, published } from './helpers.js';

guardProcesses();

/** One stage of a test that shares its servers with the next (guardProcesses checks after each test). */
async function step(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof Error) error.message = `${name}: ${error.message}`;
    throw error;
  }
}

const LONG = 'a'.repeat(100);
const named = (tools: string[], ...extra: string[]) => [
  fixture('named-tools.mjs'),
  JSON.stringify(tools),
  ...extra,
];

function writeConfig(remoteUrl: string): string {
  const directory = temporaryDirectory();
  const file = path.join(directory, 'mcp.json');
  const config = {
    // Claude Code's .mcp.json, with VS Code-style inputs beside it.
    inputs: [{ id: 'label', type: 'promptString', description: 'A label' }],
    mcpServers: {
      everything: { command: node, args: [published('server-everything'), 'stdio'] },
      memory: {
        command: node,
        args: [published('server-memory')],
        env: { MEMORY_FILE_PATH: path.join(directory, 'memory.jsonl') },
      },
      filesystem: { command: node, args: [published('server-filesystem'), directory] },
      left: { command: node, args: named(['echo', 'files.read', 'list files', LONG]) },
      right: { command: node, args: named(['echo', '${POOL_TOOL:-from-default}']) },
      asked: { command: node, args: named(['${input:label}']) },
      crashAtStart: { command: node, args: [fixture('mcp.mjs'), '--exit-at-start', '3'] },
      ignoresEof: { command: node, args: named(['stay'], '--ignore-eof') },
      off: { command: '/nonexistent/never-started', disabled: true },
      remote: { type: 'http', url: remoteUrl, headers: { 'X-Key': '${POOL_KEY:-k}' } },
      unreachable: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
    },
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

test('a pool from a config file: published and fixture servers, each state, one namespace, routing, close', async (t) => {
  const remoteServer = await startSdkV1();
  t.after(() => remoteServer.close());
  const file = writeConfig(remoteServer.url);
  const asked: string[] = [];
  const open = (env: Record<string, string>) =>
    ClientPool.fromConfigFile(file, {
      env: { ...process.env, ...env },
      input: (request) => {
        asked.push(request.id);
        return 'from-input';
      },
      startTimeout: 30_000,
      client: { reconnect: { maxReconnects: 1, initialDelay: 100 } },
    });
  const pool = open({});
  const errors: Array<{ server: string; state: string }> = [];
  pool.on('serverError', (event) => errors.push(event));
  t.after(() => pool.close());

  await step(
    'connect() starts them all at once; each is ready, failed or disabled, none holds the others',
    async () => {
      const started = Date.now();
      await pool.connect();
      assert.ok(Date.now() - started < 30_000);
      const states = Object.fromEntries(pool.status().map((s: ServerStatus) => [s.name, s.state]));
      assert.deepEqual(states, {
        everything: 'ready',
        memory: 'ready',
        filesystem: 'ready',
        left: 'ready',
        right: 'ready',
        asked: 'ready',
        crashAtStart: 'failed',
        ignoresEof: 'ready',
        off: 'disabled',
        remote: 'ready',
        unreachable: 'failed',
      });
      const crash = pool.status().find((s) => s.name === 'crashAtStart')!;
      assert.match(crash.error!.message, /exited with status 3/);
      const remote = pool.status().find((s) => s.name === 'remote')!;
      assert.equal(remote.url, remoteServer.url);
      assert.ok(
        remoteServer.requests.length > 0 && remoteServer.requests.every((r) => r.headers['x-key'] === 'k'),
        'the HTTP entry reached its server with its ${VAR:-default} header',
      );
      const unreachable = pool.status().find((s) => s.name === 'unreachable')!;
      assert.equal(unreachable.url, 'http://127.0.0.1:9/mcp');
      assert.ok(unreachable.error, 'an HTTP server that cannot be reached is failed, with its error');
      assert.ok(errors.some((e) => e.server === 'crashAtStart'));
      assert.ok(errors.some((e) => e.server === 'unreachable'));
      assert.deepEqual(asked, ['label']);
      assert.equal(pool.get('off'), undefined);
    },
  );

  await step(
    'one namespace: model-safe names, originals kept, resolve() maps back, calls routed',
    async () => {
      const { tools } = await pool.listTools();
      for (const tool of tools) assert.match(tool.name, MODEL_SAFE, tool.name);
      const names = tools.map((tool) => tool.name);
      assert.equal(new Set(names).size, names.length);
      assert.ok(
        names.includes('left__echo') && names.includes('right__echo'),
        'the same tool on two servers',
      );
      assert.ok(names.includes('left__files_read') && names.includes('left__list_files'));
      assert.ok(names.includes('right__from-default'), '${VAR:-default} with the variable unset');
      assert.ok(names.includes('asked__from-input'));
      const long = tools.find((tool) => tool.originalName === LONG)!;
      assert.equal(long.name.length, 64);
      assert.match(long.name, /^left__a+_[0-9a-f]{8}$/);
      assert.deepEqual(pool.resolve(long.name), { kind: 'tool', server: 'left', originalName: LONG });
      assert.ok(tools.some((tool) => tool.server === 'everything' && tool.originalName === 'echo'));
      assert.ok(tools.some((tool) => tool.server === 'memory'));
      assert.ok(tools.some((tool) => tool.server === 'filesystem'));
      assert.equal(tools.filter((tool) => tool.server === 'crashAtStart').length, 0);

      assert.match(textOf(await pool.callTool({ name: 'left__files_read' })), /^files\.read \d+$/);
      assert.match(textOf(await pool.callTool({ name: long.name })), new RegExp(`^${LONG} `));
      assert.match(
        textOf(await pool.callTool({ name: 'everything__echo', arguments: { message: 'hi pool' } })),
        /hi pool/,
      );
      const listed = await pool.callTool({ name: 'filesystem__list_allowed_directories', arguments: {} });
      assert.match(textOf(listed), new RegExp(path.basename(path.dirname(file))));
      const status = pool.status().find((s) => s.name === 'left')!;
      assert.equal(status.toolCount, 4);
      assert.equal(status.era, 'legacy');
      assert.ok(typeof status.pid === 'number');
    },
  );

  await step(
    'the same config always gives the same names; ${VAR:-default} takes a set variable',
    async () => {
      const again = open({ POOL_TOOL: 'from-env' });
      try {
        await again.connect();
        const first = (await pool.listTools()).tools
          .map((t) => t.name)
          .filter((n) => !n.startsWith('right__'));
        const second = (await again.listTools()).tools.map((t) => t.name);
        assert.deepEqual(
          second.filter((n) => !n.startsWith('right__')),
          first,
        );
        assert.ok(second.includes('right__from-env'));
      } finally {
        await again.close();
      }
    },
  );

  await step(
    'calls to a failed or disabled server reject at once, with its last error as cause',
    async () => {
      const tools = (await pool.listTools()).tools;
      assert.ok(tools.length > 10);
      await assert.rejects(pool.callTool({ name: 'crashAtStart__echo' }), { name: 'UnknownNameError' });
      await assert.rejects(
        pool.readResource({ uri: 'file:///x', server: 'crashAtStart' }),
        (error: unknown) => {
          assert.ok(error instanceof ServerUnavailableError);
          assert.equal(error.state, 'failed');
          assert.match((error.cause as Error).message, /exited with status 3/);
          return true;
        },
      );
      await assert.rejects(pool.readResource({ uri: 'file:///x', server: 'off' }), /disabled in its config/);
    },
  );

  await step('close() closes every server, the one that ignores EOF too', async () => {
    const pids = pool.status().flatMap((s) => (s.pid ? [s.pid] : []));
    assert.ok(pids.length >= 7);
    const closed: string[] = [];
    pool.on('serverClosed', (event) => closed.push(event.server));
    await pool.close();
    assert.ok(pool.status().every((s) => s.state === 'closed'));
    assert.equal(closed.length, 11); // every entry but the disabled one
    // guardProcesses() fails the test if any of their process groups is still running.
  });
});
