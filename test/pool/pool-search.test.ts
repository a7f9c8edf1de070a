// ClientPool.searchTools and its manifest: lazy servers of a config file are searchable from the
// lists an earlier run kept, and a call starts only the server that has the tool; the config
// entry's `lazy` key; the manifest shared by two pools of one config keeps both servers' lists.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ClientPool, ConfigError, conduitDirectory } from '../../src/index.js';
import { poolStateFile, updateJsonFile } from '../../src/pool/state-files.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { textOf } from '../helpers/wait.js';

const catalog = (tools: Array<{ name: string; description: string; properties?: string[] }>) => ({
  command: process.execPath,
  args: [fixture('catalog.mjs'), JSON.stringify(tools)],
});
const FILES = [
  { name: 'read_file', description: 'Reads the contents of a file.', properties: ['path'] },
  { name: 'list_directory', description: 'Lists the entries of a directory.', properties: ['path'] },
];
const GITHUB = [
  {
    name: 'create_issue',
    description: 'Opens a new issue in a GitHub repository.',
    properties: ['repo', 'title'],
  },
  { name: 'merge_pull_request', description: 'Merges a pull request.', properties: ['repo', 'number'] },
];
const SLACK = [
  { name: 'post_message', description: 'Posts a message to a Slack channel.', properties: ['channel'] },
];

function writeConfig(directory: string, servers: Record<string, object>): string {
  const file = path.join(directory, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

const stateOf = (pool: ClientPool, server: string) => pool.status().find((s) => s.name === server)!.state;

test('a lazy server that never started is searched from the manifest of an earlier run; its first call starts it alone', async () => {
  const directory = temporaryDirectory();
  const config = writeConfig(directory, {
    files: catalog(FILES),
    github: { ...catalog(GITHUB), lazy: true },
    slack: { ...catalog(SLACK), lazy: true },
  });
  const manifest = path.join(directory, 'state', 'mcp.manifest.json');
  {
    await using first = ClientPool.fromConfigFile(config, { manifest });
    assert.equal(first.manifestFile, manifest);
    const before = await first.searchTools('create issue');
    assert.deepEqual(
      before.map((match) => match.server),
      [],
      'github never started and no manifest yet',
    );
    assert.equal(stateOf(first, 'github'), 'idle');
    await first.listTools(); // starts every server: their lists go to the manifest
  }
  const kept = JSON.parse(readFileSync(manifest, 'utf8'));
  assert.deepEqual(Object.keys(kept.servers).sort(), ['files', 'github', 'slack']);

  await using second = ClientPool.fromConfigFile(config, { manifest });
  const matches = await second.searchTools('open a github issue', { limit: 3 });
  assert.equal(matches[0]?.name, 'github__create_issue');
  assert.equal(matches[0]?.from, 'manifest');
  assert.equal(matches[0]?.originalName, 'create_issue');
  assert.deepEqual(Object.keys(matches[0]!.inputSchema.properties ?? {}), ['repo', 'title']);
  assert.equal(stateOf(second, 'github'), 'idle', 'searching starts no lazy server');
  assert.equal(stateOf(second, 'files'), 'ready', 'searching starts the servers connect() would');
  assert.equal((await second.searchTools('directory entries'))[0]?.name, 'files__list_directory');
  assert.equal((await second.searchTools('directory entries'))[0]?.from, 'live');

  const result = await second.callTool({
    name: 'github__create_issue',
    arguments: { repo: 'a/b', title: 't' },
  });
  assert.match(textOf(result), /^create_issue \d+$/);
  assert.equal(stateOf(second, 'github'), 'ready');
  assert.equal(stateOf(second, 'slack'), 'idle', 'the call started only the server that has the tool');
  assert.equal((await second.searchTools('issue'))[0]?.from, 'live');
});

test('searchTools checks its arguments', async () => {
  await using pool = new ClientPool({ servers: {} });
  await assert.rejects(pool.searchTools(42 as unknown as string), TypeError);
  await assert.rejects(pool.searchTools('x', { limit: 0 }), /limit must be a positive integer/);
  assert.deepEqual(await pool.searchTools('anything'), []);
});

test('the config entry key lazy: true starts on first use; a value that is not a boolean is a ConfigError naming the key', async () => {
  const directory = temporaryDirectory();
  const config = writeConfig(directory, {
    eager: catalog(FILES),
    later: { ...catalog(SLACK), lazy: true },
    wrong: { ...catalog(SLACK), lazy: 'yes' },
  });
  await using pool = ClientPool.fromConfigFile(config, { manifest: false });
  assert.equal(pool.manifestFile, undefined);
  await pool.connect();
  assert.equal(stateOf(pool, 'eager'), 'ready');
  assert.equal(stateOf(pool, 'later'), 'idle');
  const wrong = pool.status().find((s) => s.name === 'wrong')!;
  assert.ok(wrong.error instanceof ConfigError);
  assert.equal((wrong.error as ConfigError).key, 'mcpServers.wrong.lazy');
  assert.match(wrong.error.message, /lazy: must be true \(start on first use\) or false, got "yes"/);
  assert.deepEqual(pool.warnings, [], 'lazy is a key conduit-mcp uses');
  assert.throws(
    () => new ClientPool({ servers: {}, manifest: 'relative.json' }),
    /manifest must be an absolute file path/,
  );
});

test('the default manifest: one file per config file under the conduit-mcp directory', () => {
  const one = poolStateFile('/a/mcp.json', 'manifest');
  assert.ok(one.startsWith(path.join(conduitDirectory(), 'pools')), one);
  assert.notEqual(one, poolStateFile('/b/mcp.json', 'manifest'));
  assert.equal(one, poolStateFile('/a/../a/mcp.json', 'manifest'));
  const directory = temporaryDirectory();
  const config = writeConfig(directory, { files: catalog(FILES) });
  const pool = ClientPool.fromConfigFile(config);
  assert.equal(pool.manifestFile, poolStateFile(config, 'manifest'));
  void pool.close();
});

test('two pools of one config writing the manifest at once keep both servers (the file is locked and merged)', async () => {
  const directory = temporaryDirectory();
  const config = writeConfig(directory, {
    files: { ...catalog(FILES), lazy: true },
    github: { ...catalog(GITHUB), lazy: true },
  });
  const manifest = path.join(directory, 'shared.manifest.json');
  await using one = ClientPool.fromConfigFile(config, { manifest });
  await using two = ClientPool.fromConfigFile(config, { manifest });
  await Promise.all([
    one.callTool({ name: 'files__read_file', arguments: { path: 'x' } }).catch(() => one.get('files')),
    two
      .callTool({ name: 'github__create_issue', arguments: { repo: 'r', title: 't' } })
      .catch(() => two.get('github')),
  ]);
  await Promise.all([one.close(), two.close()]);
  const kept = JSON.parse(readFileSync(manifest, 'utf8'));
  assert.deepEqual(Object.keys(kept.servers).sort(), ['files', 'github']);
});

test('updateJsonFile: twenty writers at once, each adding its key, lose none (the lock serialises read-change-write)', async () => {
  const file = path.join(temporaryDirectory(), 'contended.json');
  await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      updateJsonFile(file, (current) => ({ ...(current as object), [`writer${index}`]: index })),
    ),
  );
  const kept = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(Object.keys(kept).length, 20);
});
