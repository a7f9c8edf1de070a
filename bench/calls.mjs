// A fixed number of tools/call echo calls through one build of conduit-mcp and nothing else, for
// instruction counts (valgrind --tool=callgrind counts the same for the same work, whatever else
// runs on the machine). Plain Node, no tsx, so that the count holds little besides the calls.
//
//   node bench/calls.mjs <dir of a built index.js | raw> <legacy|modern> <calls> [in-flight]
//   bench/instructions.sh compares two builds: instructions per call = (count(N) - count(0)) / N
//   `raw`: the raw pipe's request loop instead (bench/clients/raw.ts, as plain Node), the floor.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [directory, era = 'modern', callsText = '1000', inFlightText = '1'] = process.argv.slice(2);
if (!directory) throw new Error('usage: node bench/calls.mjs <dir|raw> <legacy|modern> <calls> [in-flight]');
const server = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.mjs');
const CLIENT_INFO = { name: 'conduit-bench', version: '1.0.0' };
const client = directory === 'raw' ? await rawClient() : await conduitClient();

async function conduitClient() {
  const { Client } = await import(pathToFileURL(path.resolve(directory, 'index.js')).href);
  const conduit = new Client({
    name: 'bench',
    clientInfo: CLIENT_INFO,
    transport: { type: 'stdio', command: process.execPath, args: [server, '--mode', era] },
  });
  await conduit.connect();
  return conduit;
}

// The same steps as bench/clients/raw.ts: spawn detached, one write per request (the modern
// envelope built and serialised each time), lines split by hand, JSON.parse, a Map of pending.
async function rawClient() {
  const env = {};
  for (const name of ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  const child = spawn(process.execPath, [server, '--mode', era], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: process.platform !== 'win32',
  });
  const pending = new Map();
  let nextId = 0;
  let held = [];
  child.stdout.on('data', (chunk) => {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      let line;
      if (held.length > 0) {
        held.push(chunk.subarray(start, newline));
        line = Buffer.concat(held).toString('utf8');
        held = [];
      } else {
        line = chunk.toString('utf8', start, newline);
      }
      const message = JSON.parse(line);
      const entry = message.id === undefined ? undefined : pending.get(message.id);
      if (entry) {
        pending.delete(message.id);
        if (message.error) entry.reject(new Error(`${message.error.code} ${message.error.message}`));
        else entry.resolve(message.result);
      }
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) held.push(start === 0 ? chunk : chunk.subarray(start));
  });
  const request = (method, params) => {
    const id = nextId++;
    const sent =
      era === 'modern'
        ? {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              // The same capabilities conduit-mcp declares, so that both put the same bytes on the wire.
              'io.modelcontextprotocol/clientCapabilities': {
                extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
              },
              'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            },
          }
        : params;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: sent })}\n`);
    });
  };
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  if (era === 'modern') await request('server/discover', {});
  else {
    await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }
  return {
    callTool: (params) => request('tools/call', params),
    close: async () => child.stdin.end(),
  };
}
const calls = Number(callsText);
let next = 0;
const worker = async () => {
  while (next < calls) {
    const text = `echo ${next++}`;
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    if (result.content[0].text !== text) throw new Error(`wrong echo: ${JSON.stringify(result)}`);
  }
};
await Promise.all(Array.from({ length: Number(inFlightText) }, worker));
await client.close();
