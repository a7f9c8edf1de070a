// `conduit-mcp serve <url>` as a host runs it (over stdio), in front of an OAuth-protected MCP
// server (the official SDK's, behind the loopback authorization server): the first run prints the
// authorization URL on stderr, the test consents as a browser would, and the host's calls go
// through; the tokens are kept in the test's home, and a second run with --no-login reuses them.
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { browserConsent } from '../helpers/auth.js';
import { closeLater } from '../helpers/auth-setup.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';
import { bin, needsBuild } from './helpers.js';

guardProcesses();
needsBuild();

/** The host: the official SDK client running the gateway over stdio, its stderr kept. */
async function host(args: string[], env: NodeJS.ProcessEnv) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', ...args],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as Readable).setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const client = new SdkClient({ name: 'oauth-host', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function echo(client: SdkClient, text: string): Promise<string> {
  const result = await client.callTool({ name: 'echo', arguments: { text } }, undefined, { timeout: 60_000 });
  return (result.content as { text: string }[])[0]!.text;
}

test('the first run authorizes through the printed URL; the second, with --no-login, reuses the stored tokens', async () => {
  const auth = await startAuthServer();
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1');
  const home = temporaryDirectory();
  const env = { ...process.env, XDG_CONFIG_HOME: home };

  const first = await host([mcp.server.url], env);
  try {
    const answered = echo(first.client, 'hi');
    const urlLine = /open this URL in a browser[^\n]*:\n {2}(\S+)/;
    const deadline = Date.now() + 30_000;
    while (!urlLine.test(first.stderr())) {
      assert.ok(Date.now() < deadline, `no authorization URL on stderr: ${first.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const shown = urlLine.exec(first.stderr())!;
    await browserConsent(new URL(shown[1]!));
    assert.match(await answered, /hi/);
  } finally {
    await first.client.close();
  }
  assert.equal(auth.tokenRequests('authorization_code').length, 1);

  const second = await host(['--no-login', mcp.server.url], env);
  try {
    assert.match(await echo(second.client, 'again'), /again/);
    assert.doesNotMatch(second.stderr(), /open this URL/);
  } finally {
    await second.client.close();
  }
  assert.equal(auth.tokenRequests('authorization_code').length, 1, 'no second consent');

  // Without stored tokens, --no-login asks nobody: the host reads why its call cannot go through.
  const fresh = await host(['--no-login', mcp.server.url], {
    ...process.env,
    XDG_CONFIG_HOME: temporaryDirectory(),
  });
  try {
    const result = await fresh.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, {
      timeout: 60_000,
    });
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /--no-login/);
  } finally {
    await fresh.client.close();
  }
  assert.equal(auth.tokenRequests('authorization_code').length, 1);
});
