// Issue 35, item 22: messages use the command's words: --cwd, the config file and entry name, no
// library key paths (transport.cwd), the server named once, an error code once, and no
// `auth.onAuthorizationUrl failed:` prefix.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { closeLater } from '../helpers/auth-setup.js';
import { buildOnce, CLI_SERVER, run, start } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';

guardProcesses();
buildOnce();

const noLibraryWords = (text: string) => {
  assert.doesNotMatch(text, /transport\./, text);
  assert.doesNotMatch(text, /\bserver: /, text);
  assert.doesNotMatch(text, /onAuthorizationUrl/, text);
};

/** Answers every tools/call with an error whose message repeats its code, as SDK servers write it. */
const CODE_IN_MESSAGE = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [] } });
  else send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'MCP error -32602: Tool nope not found' } });
});`;

test('a command line server: --cwd by its flag, the server named nowhere twice, an error code once', async () => {
  const cwd = await run(['tools', '--cwd', '/no/such/directory', ...CLI_SERVER()]);
  assert.equal(cwd.code, 2, cwd.stderr);
  assert.match(
    cwd.stderr,
    /^conduit-mcp: --cwd must be an existing directory, but "\/no\/such\/directory" does not exist/m,
  );
  noLibraryWords(cwd.stderr);
  const missing = await run(['tools', '--', 'no-such-command-for-conduit']);
  assert.equal(missing.code, 3, missing.stderr);
  assert.match(missing.stderr, /^conduit-mcp: no-such-command-for-conduit was not found in PATH/m);
  noLibraryWords(missing.stderr);
  const unknown = await run(['call', 'nope', ...CLI_SERVER()]);
  assert.equal(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /^conduit-mcp: the server answered error -32602: Unknown tool: nope/m);
  noLibraryWords(unknown.stderr);
  const json = await run(['call', 'nope', '--json', ...CLI_SERVER()]);
  assert.match(JSON.parse(json.stdout).error.message, /^Unknown tool: nope/);
  const repeated = await run([
    'call',
    'nope',
    '--no-validate',
    '--',
    process.execPath,
    '-e',
    CODE_IN_MESSAGE,
  ]);
  assert.equal(repeated.code, 1, repeated.stderr);
  assert.match(repeated.stderr, /^conduit-mcp: the server answered error -32602: Tool nope not found$/m);
});

test('a config entry: the file, the entry name and its own key; the servers table and notes likewise', async () => {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  const servers = {
    nowhere: { command: process.execPath, args: [fixture('cli-server.mjs')], cwd: '/no/such/directory' },
    missing: { command: 'no-such-command-for-conduit' },
  };
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  const entry = await run(['tools', '--config', file, '--server', 'nowhere']);
  assert.equal(entry.code, 2, entry.stderr);
  assert.ok(
    entry.stderr.startsWith(`conduit-mcp: ${file}: nowhere: "cwd" must be an existing directory`),
    entry.stderr,
  );
  noLibraryWords(entry.stderr);
  const missing = await run(['tools', '--config', file, '--server', 'missing']);
  assert.ok(
    missing.stderr.startsWith(`conduit-mcp: ${file}: missing: no-such-command-for-conduit was not found`),
    missing.stderr,
  );
  assert.doesNotMatch(missing.stderr, /missing: missing:/);
  const table = await run(['servers', '--config', file]);
  assert.equal(table.code, 3, table.stderr);
  assert.match(table.stdout, /^ {2}nowhere +failed +- +- +"cwd" must be an existing directory/m);
  assert.match(table.stdout, /^ {2}missing +failed +- +- +no-such-command-for-conduit was not found/m);
  noLibraryWords(table.stdout);
  const tools = await run(['tools', '--config', file]);
  assert.match(tools.stderr, /^conduit-mcp: missing is failed: no-such-command-for-conduit was not found/m);
  noLibraryWords(tools.stderr);
});

test('--no-login: the reason, without the hook that carried it', async () => {
  const auth = await startAuthServer({});
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1');
  const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
  const refused = await run(['call', 'echo', '--arg', 'text=hi', '--no-login', mcp.server.url], { env });
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /^conduit-mcp: --no-login: \S+ needs your authorization; run the command once without --no-login/m,
  );
  noLibraryWords(refused.stderr);
});

test("the command's own messages are not put under a config entry's name", async () => {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  const slow = { command: process.execPath, args: [fixture('cli-server.mjs'), '--silent'] };
  writeFileSync(file, JSON.stringify({ mcpServers: { slow } }));
  const cli = start(['inspect', '--verbose', '--config', file, '--server', 'slow']);
  await cli.waitFor(/spawned .* \(pid \d+\)/);
  cli.child.kill('SIGINT');
  const result = await cli.finished;
  assert.equal(result.code, 130, result.stderr);
  assert.match(result.stderr, /^conduit-mcp: stopped by SIGINT$/m);
});
