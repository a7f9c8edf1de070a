// The stdio trace channel (conduit-mcp:transport:message, the CLI's --trace) shows every JSON-RPC
// message with the Secrets of the server's env redacted, even when the server itself sends one
// back inside a message.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dc from 'node:diagnostics_channel';
import { test } from 'node:test';
import { Client, Secret } from '../../../src/index.js';
import { nodeServer } from '../../helpers/fixtures.js';
import { guardProcesses } from '../../helpers/processes.js';
import { textOf } from '../../helpers/wait.js';

guardProcesses();

interface Traced {
  server: string;
  pid: number | undefined;
  direction: 'send' | 'receive';
  text: string;
}

test('a Secret the server echoes in a result is redacted on the trace channel, in both directions', async () => {
  const plain = `plain-${randomBytes(8).toString('hex')}`;
  const fromFunction = `fn-${randomBytes(8).toString('hex')}`;
  const traced: Traced[] = [];
  const onMessage = (message: unknown) => traced.push(message as Traced);
  dc.subscribe('conduit-mcp:transport:message', onMessage);
  const client = new Client({
    name: 'traced',
    transport: {
      type: 'stdio',
      ...nodeServer('mcp.mjs', ['--era', 'legacy'], {
        stderr: 'discard',
        env: { TOKEN: new Secret(plain), TOKEN_FN: new Secret(() => fromFunction), VISIBLE: 'shown' },
      }),
    },
  });
  try {
    await client.connect();
    for (const [name, value] of [
      ['TOKEN', plain],
      ['TOKEN_FN', fromFunction],
    ] as const) {
      // The server does have the value: the result handed to the caller carries it.
      assert.equal(textOf(await client.callTool({ name: 'env', arguments: { name } })), value);
    }
    // A request whose params carry the value (the caller's own doing) is redacted on the way out too.
    await client.callTool({ name: 'echo', arguments: { copied: plain } });
    assert.equal(textOf(await client.callTool({ name: 'env', arguments: { name: 'VISIBLE' } })), 'shown');
  } finally {
    await client.close();
    dc.unsubscribe('conduit-mcp:transport:message', onMessage);
  }
  const ours = traced.filter((message) => message.server === 'traced');
  const received = ours.filter((message) => message.direction === 'receive').map((message) => message.text);
  const sent = ours.filter((message) => message.direction === 'send').map((message) => message.text);
  assert.ok(received.length >= 5 && sent.length >= 5, `${received.length} received, ${sent.length} sent`);
  for (const text of [...received, ...sent]) {
    assert.ok(!text.includes(plain) && !text.includes(fromFunction), `the trace shows a Secret: ${text}`);
  }
  // The messages that carried the values are there, with the values redacted.
  assert.equal(received.filter((text) => text.includes('"text":"[Secret]"')).length, 2);
  assert.ok(sent.some((text) => text.includes('"copied":"[Secret]"')));
  assert.ok(
    received.some((text) => text.includes('"text":"shown"')),
    'a plain env value is shown as it is',
  );
});
