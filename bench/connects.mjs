// A fixed number of modern HTTP connects (new Client, connect() to ready, close()) through one build
// of conduit-mcp, or through the raw floor (an undici Agent, one POST of server/discover, close), and
// nothing else, for instruction counts: valgrind --tool=callgrind counts the same for the same work,
// whatever else runs on the machine. Plain Node, no tsx; the HTTP bench server is a child process
// (not counted: valgrind does not follow children).
//
//   node bench/connects.mjs <dir of a built index.js | raw> <connects>
//   bench/connect-instructions.sh compares builds: per connect = (count(W + N) - count(W)) / N
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [directory, connectsText = '100'] = process.argv.slice(2);
if (!directory) throw new Error('usage: node bench/connects.mjs <dir|raw> <connects>');
const here = path.dirname(fileURLToPath(import.meta.url));
const CLIENT_INFO = { name: 'conduit-bench', version: '1.0.0' };
const server = spawn(process.execPath, [path.join(here, 'http-server.mjs')], {
  env: { PATH: process.env.PATH ?? '' },
  stdio: ['pipe', 'pipe', 'inherit'],
});
const url = await new Promise((resolve) => createInterface({ input: server.stdout }).once('line', resolve));

let connect;
if (directory === 'raw') {
  const { Agent, request } = await import('undici');
  const body = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          // The same capabilities conduit-mcp declares, so that both put the same bytes on the wire.
          'io.modelcontextprotocol/clientCapabilities': {
            extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
          },
          'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        },
      },
    });
  connect = async () => {
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: body(),
    });
    JSON.parse(await response.body.text());
    await agent.close();
  };
} else {
  const { Client } = await import(pathToFileURL(path.resolve(directory, 'index.js')).href);
  connect = async () => {
    const client = new Client({
      name: 'bench',
      clientInfo: CLIENT_INFO,
      protocol: 'auto',
      transport: { type: 'http', url },
    });
    await client.connect();
    await client.close();
  };
}
const connects = Number(connectsText);
for (let i = 0; i < connects; i++) await connect();
server.stdin.end();
