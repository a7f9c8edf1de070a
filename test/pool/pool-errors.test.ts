// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${input:id} literally
// A pool's errors about one server name it as `error.server`: a config entry that fails only when
// its server starts, a start timeout, and a call to a server that is down.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  ClientPool,
  type ConduitError,
  ConfigError,
  ServerUnavailableError,
  StartTimeoutError,
} from '../../src/index.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { node } from './helpers.js';

guardProcesses();

test('a config entry failing at start, a start timeout and a call to a down server each carry the server', async () => {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      inputs: [{ id: 'label', type: 'promptString', description: 'A label' }],
      mcpServers: {
        asked: { command: node, args: [fixture('named-tools.mjs'), JSON.stringify(['${input:label}'])] },
        hung: { command: node, args: [fixture('mcp.mjs'), '--start-delay', '600000'] },
      },
    }),
  );
  await using pool = ClientPool.fromConfigFile(file, {
    input: () => 42 as unknown as string,
    startTimeout: 500,
    client: { reconnect: { maxReconnects: 0 } },
  });
  const reported: Array<{ server: string; error: Error }> = [];
  pool.on('serverError', (event) => reported.push(event));
  await pool.connect();
  const status = (name: string) => pool.status().find((entry) => entry.name === name)!;
  const asked = status('asked').error as ConduitError;
  assert.ok(asked instanceof ConfigError, String(asked));
  assert.equal(asked.key, 'input');
  assert.equal(asked.server, 'asked');
  const hung = status('hung').error as ConduitError;
  assert.ok(hung instanceof StartTimeoutError, String(hung));
  assert.equal(hung.server, 'hung');
  for (const { server, error } of reported) assert.equal((error as ConduitError).server, server);
  assert.deepEqual(reported.map(({ server }) => server).sort(), ['asked', 'hung']);
  const unavailable = await pool.readResource({ uri: 'file:///a.txt', server: 'asked' }).then(
    () => assert.fail('resolved'),
    (error: unknown) => error,
  );
  assert.ok(unavailable instanceof ServerUnavailableError, String(unavailable));
  assert.equal(unavailable.server, 'asked');
  assert.equal(unavailable.cause, asked);
});

test("a server's bad option is a ConfigError naming the server in its message, with the key as written", async () => {
  await using pool = new ClientPool({
    servers: {
      good: { transport: { type: 'stdio', command: node, args: [fixture('named-tools.mjs'), '["ok"]'] } },
      alpha: { transport: { type: 'stdio', command: node, args: 'x' as unknown as string[] } },
    },
  });
  const reported: Array<{ server: string; error: Error }> = [];
  pool.on('serverError', (event) => reported.push(event));
  await pool.connect();
  const error = pool.status().find((entry) => entry.name === 'alpha')!.error as ConfigError;
  assert.ok(error instanceof ConfigError, String(error));
  assert.equal(error.key, 'transport.args');
  assert.equal(error.server, 'alpha');
  assert.match(error.message, /^alpha: transport\.args must be an array of strings/);
  assert.deepEqual(
    reported.map(({ server, error }) => [server, error.message.split(':')[0]]),
    [['alpha', 'alpha']],
  );
});
