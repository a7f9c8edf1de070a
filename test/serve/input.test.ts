// A server behind the gateway asks the client something (elicitation) during a tool call: the
// gateway asks its host, in the host's era. A legacy host gets the request as the gateway's own; a
// modern host gets an input_required result and answers it in its retry, while the call behind
// the gateway stays under way; the server behind may speak either era.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client, type ProtocolMode } from '../../src/index.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { bin, needsBuild } from './helpers.js';

guardProcesses();
needsBuild();

/** A config of the scriptable fixture twice: `modern` in both eras (so the modern one), `legacy` in the legacy era only. */
function config(): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  const server = (era: string) => ({ command: process.execPath, args: [fixture('mcp.mjs'), '--era', era] });
  writeFileSync(file, JSON.stringify({ mcpServers: { modern: server('dual'), legacy: server('legacy') } }));
  return file;
}

function host(protocol: ProtocolMode, asked: unknown[], file: string): Client {
  return new Client({
    name: 'gateway',
    protocol,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [bin, 'serve', '--config', file],
      stderr: 'discard',
    },
    connectTimeout: 30_000,
    requestTimeout: 30_000,
    handlers: {
      elicitation: async (params) => {
        asked.push(params);
        return { action: 'accept', content: { ok: true } };
      },
    },
  });
}

for (const protocol of ['modern', 'legacy'] as const) {
  test(`a ${protocol} host answers the elicitation of a modern and of a legacy server behind the gateway`, async () => {
    const asked: unknown[] = [];
    await using client = host(protocol, asked, config());
    await client.connect();
    assert.equal(client.era, protocol);
    for (const server of ['modern', 'legacy']) {
      const result = await client.callTool({ name: `${server}__ask`, arguments: {} });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const text = (result.content[0] as { text: string }).text;
      assert.match(text, /"action":"accept"/, `${server}: ${text}`);
      assert.match(text, /"ok":true/, `${server}: ${text}`);
    }
    assert.equal(asked.length, 2);
    assert.match(JSON.stringify(asked[0]), /Proceed\?/);
  });
}

test('a modern host that declares no elicitation: the server behind is told so, and the host reads why', async () => {
  await using client = new Client({
    name: 'gateway',
    protocol: 'modern',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [bin, 'serve', '--config', config()],
      stderr: 'discard',
    },
    connectTimeout: 30_000,
    requestTimeout: 30_000,
  });
  await client.connect();
  const result = await client.callTool({ name: 'modern__ask', arguments: {} });
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /does not support elicitation/);
});
