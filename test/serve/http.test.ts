// conduit-mcp serve --http: the official clients (SDK 1.x and 2.x) and conduit-mcp's own Client
// over Streamable HTTP, and each of the gateway's refusals with its status and message.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  Client as Sdk2Client,
  StreamableHTTPClientTransport as Sdk2Transport,
} from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, McpError } from '../../src/index.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';
import { bin, needsBuild, runGateway, threeServerConfig } from './helpers.js';

guardProcesses();
needsBuild();

const running: ChildProcess[] = [];
after(async () => {
  for (const child of running) {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
});

/** Starts `serve --http 127.0.0.1:0` with `args`; resolves with its URL once it listens. */
async function gateway(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  running.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  await waitFor(() => /at (http:\S+)/.test(stderr), 'the gateway to listen', 30_000);
  return { url: /at (http:\S+)/.exec(stderr)![1]!, child };
}

function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        // A refusal's message, unescaped; any other body as it came.
        response.on('end', () => {
          const message = /^\{"jsonrpc"/.test(text)
            ? (JSON.parse(text) as { error?: { message: string } }).error?.message
            : undefined;
          resolve({
            status: response.statusCode!,
            text: message ?? text,
            challenge: response.headers['www-authenticate'],
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

test('three clients over HTTP: conduit-mcp (with progress and a cancellation the server sees), SDK 1.x and SDK 2.x', async () => {
  const directory = temporaryDirectory();
  const record = path.join(directory, 'fx.log');
  const { url } = await gateway(['--config', threeServerConfig(directory, record)]);

  await using client = new Client({ name: 'gateway', transport: { type: 'http', url } });
  await client.connect();
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(
    ['demo__add', 'fx__echo', 'memory__read_graph'].every((name) => names.includes(name)),
    names.join(', '),
  );
  assert.deepEqual(
    (await client.callTool({ name: 'demo__add', arguments: { a: 4, b: 5 } })).structuredContent,
    { sum: 9 },
  );
  const stop = new AbortController();
  const seen: number[] = [];
  const slow = client.callTool(
    { name: 'fx__slow', arguments: { steps: 200, interval: 100 } },
    {
      signal: stop.signal,
      onProgress: ({ progress }) => {
        seen.push(progress);
        if (seen.length === 2) stop.abort();
      },
    },
  );
  await assert.rejects(slow, { name: 'AbortError' });
  await waitFor(
    () => /notifications\/cancelled/.test(readFileSync(record, 'utf8')),
    'the cancellation at the server',
    15_000,
  );

  const sdk1 = new Sdk1Client({ name: 'sdk1', version: '1.0.0' });
  await sdk1.connect(new Sdk1Transport(new URL(url)));
  assert.ok((await sdk1.listTools()).tools.some((tool) => tool.name === 'memory__create_entities'));
  assert.match(
    JSON.stringify((await sdk1.callTool({ name: 'fx__echo', arguments: { v: 'one' } })).content),
    /one/,
  );
  assert.notEqual((await sdk1.callTool({ name: 'memory__read_graph', arguments: {} })).isError, true);
  await sdk1.close();

  const sdk2 = new Sdk2Client({ name: 'sdk2', version: '2.0.0' });
  await sdk2.connect(new Sdk2Transport(new URL(url)));
  assert.ok((await sdk2.listTools()).tools.some((tool) => tool.name === 'demo__countdown'));
  const sum = await sdk2.callTool({ name: 'demo__add', arguments: { a: 1, b: 2 } });
  assert.deepEqual(sum.structuredContent, { sum: 3 });
  assert.match(
    JSON.stringify((await sdk2.callTool({ name: 'fx__echo', arguments: { v: 'two' } })).content),
    /two/,
  );
  await sdk2.close();
});

test('refusals: another path 404, a foreign Host or Origin 403, a body over --max-body-bytes 413', async () => {
  const directory = temporaryDirectory();
  const { url } = await gateway([
    '--config',
    threeServerConfig(directory, path.join(directory, 'fx.log')),
    '--max-body-bytes',
    '2000',
  ]);
  const other = await post(url.replace('/mcp', '/other'), initialize);
  assert.equal(other.status, 404);
  assert.match(other.text, /answers MCP at \/mcp only/);
  const host = await post(url, initialize, { host: 'evil.example:80' });
  assert.equal(host.status, 403);
  assert.match(host.text, /Host "evil.example:80" is not allowed \(DNS rebinding protection\)/);
  const origin = await post(url, initialize, { origin: 'https://evil.example' });
  assert.equal(origin.status, 403);
  assert.match(origin.text, /Origin "https:\/\/evil.example" is not allowed/);
  const big = await post(
    url,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5000) } }),
  );
  assert.equal(big.status, 413);
  assert.match(big.text, /over the gateway's limit of 2000/);
  // No Content-Length: a chunked body is refused as soon as it passes the cap, not when it ends
  // (this one never ends: a host that keeps sending is not read to the end).
  const streamed = httpRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  streamed.on('error', () => {});
  streamed.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(3000)}`);
  const [refused] = (await once(streamed, 'response', { signal: AbortSignal.timeout(10_000) })) as [
    import('node:http').IncomingMessage,
  ];
  assert.equal(refused.statusCode, 413);
  refused.resume();
  streamed.destroy();
  const fine = await post(url, initialize, { origin: 'http://localhost:3000' });
  assert.equal(fine.status, 200, fine.text);
});

test('--token-env: no token or a wrong one is 401; the right one is served', async () => {
  const directory = temporaryDirectory();
  const env = { ...process.env, GATEWAY_TOKEN: 'correct horse battery staple' };
  const { url } = await gateway(
    [
      '--config',
      threeServerConfig(directory, path.join(directory, 'fx.log')),
      '--token-env',
      'GATEWAY_TOKEN',
    ],
    env,
  );
  const none = await post(url, initialize);
  assert.equal(none.status, 401);
  assert.match(none.text, /needs a bearer token/);
  assert.match(none.challenge ?? '', /^Bearer\b/);
  const wrong = await post(url, initialize, { authorization: 'Bearer guess' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.challenge ?? '', /^Bearer\b.*error="invalid_token"/);
  assert.doesNotMatch(wrong.text, /correct horse/);
  const right = await post(url, initialize, { authorization: 'Bearer correct horse battery staple' });
  assert.equal(right.status, 200, right.text);
});

test('--max-in-flight: a request beyond the limit is 503 while another is under way', async () => {
  const directory = temporaryDirectory();
  const { url } = await gateway([
    '--config',
    threeServerConfig(directory, path.join(directory, 'fx.log')),
    '--max-in-flight',
    '1',
  ]);
  await using client = new Client({ name: 'gateway', transport: { type: 'http', url }, protocol: 'legacy' });
  await client.connect();
  const slow = client.callTool({ name: 'fx__slow', arguments: { steps: 30, interval: 100 } });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const refused = await post(url, initialize);
  assert.equal(refused.status, 503);
  assert.match(refused.text, /in-flight limit/);
  await slow;
});

test('an address beyond loopback without --token-env is refused before anything starts', async () => {
  const { code, stderr } = await runGateway(['serve', '--http', '0.0.0.0:0', '--', process.execPath, 'x.js']);
  assert.equal(code, 2);
  assert.match(stderr, /listens beyond this machine: give --token-env <VAR>/);
});

test('a legacy host over HTTP (the gateway answers its plain calls itself): routed calls, an unknown tool, a server down, a cancellation the server sees', async () => {
  const directory = temporaryDirectory();
  const record = path.join(directory, 'fx.log');
  const { url } = await gateway(['--config', threeServerConfig(directory, record)]);
  await using client = new Client({
    name: 'gateway',
    protocol: 'legacy',
    transport: { type: 'http', url },
    handlers: { elicitation: async () => ({ action: 'accept', content: { ok: true } }) },
  });
  await client.connect();
  assert.equal(client.era, 'legacy');
  assert.deepEqual(
    (await client.callTool({ name: 'demo__add', arguments: { a: 4, b: 5 } })).structuredContent,
    { sum: 9 },
  );
  assert.match(
    JSON.stringify((await client.callTool({ name: 'fx__echo', arguments: { v: 'x' } })).content),
    /x/,
  );
  await assert.rejects(client.callTool({ name: 'nobody__here', arguments: {} }), (error: unknown) => {
    assert.ok(error instanceof McpError);
    assert.equal(error.code, -32602);
    assert.match(error.message, /Unknown tool: nobody__here/);
    return true;
  });
  const stop = new AbortController();
  const slow = client.callTool(
    { name: 'fx__slow', arguments: { steps: 200, interval: 100 } },
    { signal: stop.signal },
  );
  await waitFor(
    () => /"fx__slow"|"slow"/.test(readFileSync(record, 'utf8')),
    'the call at the server',
    15_000,
  );
  stop.abort();
  await assert.rejects(slow, { name: 'AbortError' });
  await waitFor(
    () => /notifications\/cancelled/.test(readFileSync(record, 'utf8')),
    'the cancellation at the server',
    15_000,
  );
  // That era has no session over HTTP: a server's question cannot reach the host, and says so at once.
  const asked = await client
    .callTool({ name: 'fx__ask', arguments: {} }, { timeout: 20_000 })
    .then(JSON.stringify, (error: Error) => error.message);
  assert.match(asked, /cannot send elicitation\/create to a host that speaks the 2025 era over HTTP/);
  const crashed = await client.callTool({ name: 'fx__crash', arguments: {} });
  assert.equal(crashed.isError, true, JSON.stringify(crashed));
  assert.match(JSON.stringify(crashed.content), /conduit-mcp gateway: .*fx/);
  assert.deepEqual(
    (await client.callTool({ name: 'demo__add', arguments: { a: 1, b: 1 } })).structuredContent,
    { sum: 2 },
  );
});
