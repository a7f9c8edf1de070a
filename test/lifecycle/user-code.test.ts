// Guarantees 1 and 2 of the lifecycle: user code (listeners, handlers, onProgress, Secret
// functions) that throws or rejects never breaks the client, and every answer the client owes a
// server is sent, or the connection is closed with a reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClientClosedError, ConfigError, Secret } from '../../src/index.js';
import { runHost } from '../helpers/hosts.js';
import { ERAS, mcpClient, responsesIn } from '../helpers/lifecycle.js';
import { guardProcesses, waitGroupGone } from '../helpers/processes.js';
import { captureUncaught, UserCallbackError } from '../helpers/user-errors.js';
import { textOf, waitFor } from '../helpers/wait.js';

guardProcesses();

/**
 * Runs test/fixtures/hosts/throwing-user-code.ts, a host whose user code throws, in a process of
 * its own (the file says why) and returns its report, after checking that nothing but its user
 * code's errors was re-thrown and that every server process it started is gone.
 */
async function runThrowingHost(scenario: 'listeners' | 'progress', era: string) {
  const { code, signal, stdout, stderr } = await runHost('throwing-user-code.ts', [scenario, era]);
  assert.equal(code, 0, `the host failed (signal ${signal}): ${stderr}`);
  const report = JSON.parse(stdout) as {
    groups: number[];
    userErrors: string[];
    foreignErrors: string[];
    [key: string]: unknown;
  };
  assert.deepEqual(report.foreignErrors, [], "only the user callbacks' own errors were re-thrown");
  for (const group of report.groups)
    assert.ok(await waitGroupGone(group, 8000), `server group ${group} is gone`);
  return report;
}

for (const era of ERAS) {
  test(`${era}: listeners of every event that throw or reject leave connect(), restarts and requests working, and each error is re-thrown on a later tick`, async () => {
    const report = await runThrowingHost('listeners', era);
    assert.equal(report.stateAfterConnect, 'ready');
    assert.equal(report.listenerRanBeforeConnectResolved, true);
    // Re-thrown outside our stack: nothing was thrown yet when connect() resolved.
    assert.equal(report.rethrownBeforeConnectResolved, 0);
    assert.equal(report.echoAfterRestart, JSON.stringify({ after: 'restart' }));
    assert.equal(report.groups.length, 2, 'one server, then its restart');
    for (const event of ['ready', 'disconnected', 'reconnecting', 'notification', 'log']) {
      assert.ok(
        report.userErrors.includes(`a '${event}' listener`),
        `the '${event}' listener's error was re-thrown`,
      );
      assert.ok(
        report.userErrors.includes(`an async '${event}' listener`),
        `the async '${event}' listener's rejection was re-thrown`,
      );
    }
  });

  test(`${era}: an onProgress that throws on every call leaves its request to resolve`, async () => {
    const report = await runThrowingHost('progress', era);
    assert.equal(report.result, 'done');
    assert.equal(report.progressCalls, 3);
    assert.deepEqual(report.userErrors, ['onProgress', 'onProgress', 'onProgress']);
  });
}

test('legacy: a handler that throws gets the server an error answer; the tool call still resolves', async () => {
  const { client } = mcpClient(['--era', 'legacy'], {
    handlers: {
      elicitation: () => {
        throw new UserCallbackError('an elicitation handler');
      },
    },
  });
  await client.connect();
  const result = await client.callTool({ name: 'ask' });
  assert.deepEqual(JSON.parse(textOf(result)), {
    answers: { error: { code: -32603, message: 'user code threw in an elicitation handler' } },
  });
});

test('modern: a handler that throws rejects the request that asked for input, and only it', async () => {
  const { client } = mcpClient(['--era', 'modern'], {
    handlers: {
      elicitation: async () => {
        throw new UserCallbackError('an elicitation handler');
      },
    },
  });
  await client.connect();
  await assert.rejects(client.callTool({ name: 'ask' }), UserCallbackError);
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { n: 1 } })), '{"n":1}');
});

test('a Secret function that throws fails connect() with the cause, at once', async () => {
  const { client } = mcpClient(['--era', 'legacy']);
  const failing = mcpClient([], {
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: ['-e', ''],
      env: {
        TOKEN: new Secret(() => {
          throw new UserCallbackError('a Secret function');
        }),
      },
    },
  });
  await client.connect();
  const error = await failing.client.connect().then(
    () => assert.fail('connect() resolved'),
    (reason: unknown) => reason as Error,
  );
  assert.ok(error instanceof ConfigError, String(error));
  assert.equal(error.key, 'transport.env.TOKEN');
  assert.ok(error.cause instanceof UserCallbackError);
  assert.equal(failing.client.state, 'closed');
  // The cause is kept for what follows.
  const later = await failing.client.request('ping').then(
    () => assert.fail('resolved'),
    (reason: unknown) => reason as ClientClosedError,
  );
  assert.ok(later instanceof ClientClosedError);
  assert.equal(later.reason?.type, 'spawn_failed');
  assert.equal(later.cause, error);
  assert.equal(client.state, 'ready', 'another client is unaffected');
});

for (const [what, value] of [
  ['a BigInt', () => ({ roots: [{ uri: 'file:///a', size: 10n }] })],
  [
    'a cycle',
    () => {
      const root: Record<string, unknown> = { uri: 'file:///a' };
      root.self = root;
      return { roots: [root] };
    },
  ],
  ['undefined', () => undefined],
] as const) {
  test(`legacy: a handler result holding ${what} gets the server -32603, never silence or a throw`, async () => {
    const { client, record } = mcpClient(['--era', 'legacy'], {
      handlers: { roots: async () => value() as never },
    });
    await client.connect();
    const result = await client.callTool({ name: 'ask-many', arguments: { count: 1, method: 'roots/list' } });
    const [answer] = JSON.parse(textOf(result)) as Array<{ error?: { code: number } }>;
    assert.equal(answer?.error?.code, -32603, JSON.stringify(answer));
    assert.equal(responsesIn(record).length, 1, 'one answer, nothing else');
  });
}

test('legacy: a server that stops reading and floods pings closes the transport with write_queue_full; the host never sees a throw', async () => {
  const { client, events } = mcpClient(['--era', 'legacy', '--ping-flood', '5000'], {
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [`${import.meta.dirname}/../fixtures/servers/mcp.mjs`, '--era', 'legacy', '--ping-flood', '5000'],
      maxWriteQueueBytes: 4096,
      stdinGrace: 300,
      termGrace: 300,
      stderr: 'discard',
    },
    reconnect: { maxReconnects: 0 },
  });
  // Anything thrown out of an event handler would be taken here, and fail the test.
  const captured = captureUncaught();
  try {
    await client.connect().catch(() => {});
    await waitFor(() => client.state === 'closed', 'the client to give up');
    await sleep(50);
  } finally {
    assert.deepEqual(captured.stop(), []);
  }
  const disconnected = events.find(([name]) => name === 'disconnected')?.[1] as { type: string } | undefined;
  assert.equal(disconnected?.type, 'write_queue_full');
  const closed = events.find(([name]) => name === 'closed')?.[1] as { type: string } | undefined;
  assert.equal(closed?.type, 'write_queue_full');
  const error = await client.callTool({ name: 'echo' }).then(
    () => assert.fail('resolved'),
    (reason: unknown) => reason as ClientClosedError,
  );
  assert.ok(error instanceof ClientClosedError);
  assert.equal(error.reason?.type, 'write_queue_full');
});
