// Every error that concerns one server carries it as `error.server`, not only in its message:
// provoked for real against a fixture server, one of each main kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AbortError,
  CapabilityError,
  Client,
  ClientClosedError,
  type ConduitError,
  ConnectionClosedError,
  McpError,
  RequestTimeoutError,
  SpawnError,
  UsageError,
} from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();

const QUICK = { stdinGrace: 200, termGrace: 200, stderr: 'discard' } as const;

async function rejection<T extends ConduitError>(
  promise: Promise<unknown>,
  Class: abstract new (...args: never[]) => T,
): Promise<T> {
  const error = await promise.then(
    () => assert.fail('resolved, a rejection was expected'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof Class, `a ${Class.name} was expected: ${String(error)}`);
  return error;
}

test('timeout, server error, lost connection, abort, call-time misuse, missing capability, closed client: each names its server', async () => {
  const client = new Client({
    name: 'files',
    transport: {
      type: 'stdio',
      ...nodeServer('mcp.mjs', ['--era', 'legacy', '--without', 'prompts'], QUICK),
    },
    reconnect: { maxReconnects: 1, initialDelay: 10, jitter: 0 },
  });
  try {
    await client.connect();
    const errors: ConduitError[] = [
      await rejection(
        client.callTool({ name: 'slow', arguments: { steps: 5 } }, { timeout: 50 }),
        RequestTimeoutError,
      ),
      await rejection(client.request('no/such/method'), McpError),
      await rejection(client.callTool({ name: 'crash', arguments: { code: 3 } }), ConnectionClosedError),
      await rejection(
        client.callTool({ name: 'slow', arguments: { steps: 5 } }, { signal: AbortSignal.timeout(30) }),
        AbortError,
      ),
      await rejection(client.callTool({ name: 'echo' }, { timeout: -1 }), UsageError),
      await rejection(client.listPrompts(), CapabilityError),
    ];
    await client.close();
    errors.push(await rejection(client.request('ping'), ClientClosedError));
    for (const error of errors) {
      assert.equal(error.server, 'files', `${error.name}: ${error.message}`);
      assert.match(error.message, /^files: /, error.name);
    }
  } finally {
    await client.close();
  }
});

test('a failed start names its server on the rejection and on the close reason', async () => {
  const client = new Client({
    name: 'missing',
    transport: { type: 'stdio', command: 'conduit-no-such-server-35', ...QUICK },
  });
  let closedWith: unknown;
  client.on('closed', (reason) => {
    closedWith = reason && 'error' in reason ? reason.error : undefined;
  });
  const error = await rejection(client.connect(), SpawnError);
  assert.equal(error.server, 'missing');
  assert.equal((closedWith as ConduitError | undefined)?.server, 'missing');
  await client.close();
});
