// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${VAR} literally
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import { ConfigError, isSecret, loadConfigFile, parseConfig } from '../../src/index.js';
import { temporaryDirectory } from '../helpers/fixtures.js';

const env = { HOME_DIR: '/home/u', TOKEN: 'tok-123', EMPTY: '' };

async function transportOf(text: string, name: string, options = {}) {
  const config = parseConfig(text, '/work/project/.mcp.json', { env, ...options });
  const server = config.servers.find((entry) => entry.name === name)!;
  if (server.error) throw server.error;
  return server.transport();
}

describe('formats', () => {
  test('mcpServers (Claude Desktop, Cursor, Claude Code) with stdio and HTTP entries', async () => {
    const text = JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server-filesystem', '/tmp'], env: { A: 'b' } },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
        streamable: { type: 'streamable-http', url: 'https://a.example.com/mcp' },
        sse: { type: 'sse', url: 'https://b.example.com/sse' },
        bare: { url: 'https://c.example.com/mcp' },
      },
    });
    const config = parseConfig(text, '/p/.mcp.json', { env });
    assert.equal(config.format, 'mcpServers');
    assert.deepEqual(
      config.servers.map((s) => s.name),
      ['files', 'remote', 'streamable', 'sse', 'bare'],
    );
    const files = await config.servers[0]!.transport();
    assert.equal(files.type, 'stdio');
    assert.deepEqual(files.type === 'stdio' && files.args, ['-y', 'server-filesystem', '/tmp']);
    const remote = await config.servers[1]!.transport();
    assert.equal(remote.type, 'http');
    assert.equal(remote.type === 'http' && remote.url, 'https://mcp.example.com/mcp');
    assert.ok(remote.type === 'http' && isSecret(remote.headers.Authorization));
    for (const entry of config.servers.slice(2)) assert.equal((await entry.transport()).type, 'http');
  });

  test("VS Code's servers + inputs, JSONC with comments and trailing commas", async () => {
    const text = `{
      // VS Code
      "inputs": [{ "type": "promptString", "id": "pat", "description": "GitHub PAT", "password": true },],
      "servers": {
        "github": { "type": "stdio", "command": "gh-mcp", "env": { "GITHUB_TOKEN": "\${input:pat}" }, }, /* done */
      },
    }`;
    const asked: unknown[] = [];
    const config = parseConfig(text, '/p/.vscode/mcp.json', {
      env,
      input: (request) => {
        asked.push(request);
        return 'ghp_secret';
      },
    });
    assert.equal(config.format, 'servers');
    const github = config.servers[0]!;
    assert.deepEqual(github.inputs, ['pat']);
    const spec = await github.transport();
    await github.transport();
    assert.equal(asked.length, 1, 'an input is asked once');
    assert.deepEqual(asked[0], {
      type: 'promptString',
      id: 'pat',
      description: 'GitHub PAT',
      password: true,
      server: 'github',
    });
    assert.ok(spec.type === 'stdio' && isSecret(spec.env.GITHUB_TOKEN));
    assert.doesNotMatch(inspect(spec), /ghp_secret/);
  });

  test('${input:} without a callback is refused, naming file, server and key', () => {
    const config = parseConfig(
      JSON.stringify({
        inputs: [{ id: 'pat' }],
        servers: { gh: { command: 'x', env: { T: '${input:pat}' } } },
      }),
      'mcp.json',
      { env },
    );
    const error = config.servers[0]!.error;
    assert.ok(error instanceof ConfigError);
    assert.equal(error.key, 'servers.gh.env.T');
    assert.match(
      error.message,
      /^mcp\.json: servers\.gh\.env\.T: \$\{input:pat\} needs a value from the host/,
    );
    const undeclared = parseConfig(
      JSON.stringify({ inputs: [], servers: { gh: { command: 'x', args: ['${input:nope}'] } } }),
      'mcp.json',
      { env, input: () => 'v' },
    );
    assert.match(
      undeclared.servers[0]!.error!.message,
      /servers\.gh\.args\[0\]: \$\{input:nope\} is not declared in "inputs"/,
    );
  });
});

describe('variables', () => {
  test('${VAR}, ${env:VAR}, ${VAR:-default} set and unset, ${userHome}, ${workspaceFolder}', async () => {
    const spec = await transportOf(
      JSON.stringify({
        mcpServers: {
          s: {
            command: '${HOME_DIR}/bin/server',
            args: [
              '${env:TOKEN}',
              '${TOKEN:-fallback}',
              '${UNSET_VAR:-fallback}',
              '${EMPTY:-was-empty}',
              '${userHome}',
              '${workspaceFolder}/x',
            ],
            env: { K: 'pre-${TOKEN}-post' },
          },
        },
      }),
      's',
    );
    assert.equal(spec.type, 'stdio');
    if (spec.type !== 'stdio') return;
    assert.equal(spec.command, '/home/u/bin/server');
    assert.deepEqual(spec.args, [
      'tok-123',
      'tok-123',
      'fallback',
      'was-empty',
      homedir(),
      '/work/project/x',
    ]);
    assert.ok(isSecret(spec.env.K));
  });

  test('an unset variable with no default is an error naming server and key, never an empty string', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: { ok: { command: 'a' }, bad: { command: 'a', env: { GITHUB: '${GITHUB_TOKEN}' } } },
      }),
      '/p/mcp.json',
      { env },
    );
    assert.equal(config.servers[0]!.error, undefined, 'the other entries are unaffected');
    const error = config.servers[1]!.error!;
    assert.equal(error.key, 'mcpServers.bad.env.GITHUB');
    assert.equal(
      error.message,
      '/p/mcp.json: mcpServers.bad.env.GITHUB: the environment variable GITHUB_TOKEN is not set and ${GITHUB_TOKEN} has no default; set it, or write ${GITHUB_TOKEN:-default}',
    );
    const url = parseConfig(JSON.stringify({ mcpServers: { r: { url: 'https://${HOST}/mcp' } } }), 'm.json', {
      env,
    });
    assert.equal(url.servers[0]!.error!.key, 'mcpServers.r.url');
  });
});

describe('entries', () => {
  test('envFile (env wins), cwd relative to the file, disabled', async () => {
    const directory = temporaryDirectory();
    writeFileSync(path.join(directory, '.env'), '# comment\nexport A=from-file\nB="two words"\nC=kept\n');
    const file = path.join(directory, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        servers: {
          s: { command: 'x', envFile: '${workspaceFolder}/.env', env: { C: 'from-env' }, cwd: 'sub' },
          off: { command: 'y', disabled: true },
        },
      }),
    );
    const config = loadConfigFile(file, { env });
    const spec = await config.servers[0]!.transport();
    assert.ok(spec.type === 'stdio');
    if (spec.type !== 'stdio') return;
    assert.deepEqual(Object.keys(spec.env).sort(), ['A', 'B', 'C']);
    assert.equal(spec.cwd, path.join(directory, 'sub'));
    assert.equal(config.servers[1]!.disabled, true);
    const missing = parseConfig(
      JSON.stringify({ servers: { s: { command: 'x', envFile: './nope.env' } } }),
      file,
      { env },
    );
    assert.match(missing.servers[0]!.error!.message, /servers\.s\.envFile: cannot read .*nope\.env/);
  });

  test('unknown keys are reported as warnings with a suggestion; wrong types are errors naming the key', () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          s: { command: 'x', arg: [], autoApprove: [] },
          t: { command: 'x', args: 'a b' },
          u: { type: 'websocket', url: 'x' },
          v: {},
        },
      }),
      'mcp.json',
      { env },
    );
    assert.deepEqual(config.warnings, [
      'mcp.json: mcpServers.s.arg is not a setting conduit-mcp uses (ignored); did you mean mcpServers.s.args?',
      'mcp.json: mcpServers.s.autoApprove is not a setting conduit-mcp uses (ignored); the options are type, command, args, env, envFile, cwd, url, serverUrl, headers, oauth, disabled, lazy',
    ]);
    assert.equal(config.servers[0]!.error, undefined);
    assert.equal(
      config.servers[1]!.error!.message,
      'mcp.json: mcpServers.t.args: must be an array of strings, got "a b"',
    );
    assert.match(
      config.servers[2]!.error!.message,
      /mcpServers\.u\.type: must be "stdio", "http", "streamable-http" or "sse"/,
    );
    assert.match(config.servers[3]!.error!.message, /mcpServers\.v\.command: is required/);
  });

  test('what spoils the whole file throws, naming the file and the place', () => {
    assert.throws(
      () => parseConfig('{\n "mcpServers": {\n  "a": 1\n  "b": 2 } }', 'bad.json'),
      /^ConfigError: bad\.json: not valid JSON: .* at line 4, column 3$/,
    );
    assert.throws(
      () => parseConfig('{"servers": [], "x": 1}', 'v.json'),
      /v\.json: servers must be an object of servers, got an array/,
    );
    assert.throws(() => parseConfig('{"other": {}}', 'o.json'), /o\.json: has no "mcpServers"/);
    assert.throws(
      () => parseConfig('{"servers": {}, "mcpServers": {}}', 'b.json'),
      /has both "mcpServers" and "servers"/,
    );
    assert.throws(
      () => loadConfigFile('/nonexistent/mcp.json'),
      /\/nonexistent\/mcp\.json: cannot read the file/,
    );
  });
});
