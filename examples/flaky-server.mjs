#!/usr/bin/env node
// A small MCP server in plain Node (no SDK) that misbehaves on request, for the docs' examples of
// errors, restarts and limits. Both eras, like demo-server.mjs. The first argument picks a mode:
//   (none)          a working server with the tools below
//   fail-at-start   prints a reason on stderr and exits with status 1 before answering anything
//   silent          reads stdin and never answers (a server stuck at start)
//   stubborn        a working server that ignores stdin EOF and SIGTERM (only SIGKILL ends it)
//   legacy-only     a working server that speaks only the legacy era (no server/discover)
// Tools: `echo` (returns its text), `slow` (answers after `ms` milliseconds), `crash` (exits with
// status 3 while the call is pending), `big` (returns `bytes` bytes of text), `fail` (a JSON-RPC
// error -32000).
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'normal';
const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const serverInfo = { name: 'conduit-flaky', version: '1.0.0' };
const capabilities = { tools: {} };

if (mode === 'fail-at-start') {
  process.stderr.write('flaky-server: FLAKY_API_KEY is not set; cannot start\n');
  process.exit(1);
}
if (mode === 'stubborn') {
  process.on('SIGTERM', () => process.stderr.write('flaky-server: ignoring SIGTERM\n'));
  setInterval(() => {}, 1000); // stays alive after stdin ends
}

const object = (properties, required = []) => ({ type: 'object', properties, required });
const tools = [
  {
    name: 'echo',
    description: 'Returns its text',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
  },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds',
    inputSchema: object({ ms: { type: 'integer' } }),
  },
  { name: 'crash', description: 'Exits with status 3 while the call is pending', inputSchema: object({}) },
  {
    name: 'big',
    description: 'Returns bytes bytes of text',
    inputSchema: object({ bytes: { type: 'integer' } }),
  },
  { name: 'fail', description: 'Answers with a JSON-RPC error', inputSchema: object({}) },
];

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function callTool({ name, arguments: args = {} }) {
  if (name === 'echo') return text(String(args.text));
  if (name === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, args.ms ?? 1000));
    return text(`answered after ${args.ms ?? 1000} ms`);
  }
  if (name === 'crash') {
    process.stderr.write('flaky-server: crashing on purpose\n');
    process.exit(3);
  }
  if (name === 'big') return text('x'.repeat(args.bytes ?? 100_000));
  if (name === 'fail') throw Object.assign(new Error('the backend is down'), { code: -32000 });
  throw Object.assign(new Error(`Unknown tool: ${name}`), { code: -32602 });
}

async function handle({ id, method, params = {} }) {
  if (id === undefined || method === undefined) return;
  const modern = params._meta?.[VERSION_KEY] === MODERN;
  try {
    let result;
    if (method === 'server/discover' && mode !== 'legacy-only') {
      if (!modern) {
        const data = { supported: [MODERN, ...LEGACY], requested: params._meta?.[VERSION_KEY] };
        write({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data } });
        return;
      }
      const meta = { 'io.modelcontextprotocol/serverInfo': serverInfo };
      result = { supportedVersions: [MODERN, ...LEGACY], capabilities, _meta: meta };
    } else if (method === 'initialize') {
      const version = LEGACY.includes(params.protocolVersion) ? params.protocolVersion : LEGACY[0];
      result = { protocolVersion: version, capabilities, serverInfo };
    } else if (method === 'tools/list') result = { tools };
    else if (method === 'tools/call') result = await callTool(params);
    else if (method === 'ping') result = {};
    else throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
    write({ jsonrpc: '2.0', id, result: modern ? { resultType: 'complete', ...result } : result });
  } catch (error) {
    write({ jsonrpc: '2.0', id, error: { code: error.code ?? -32603, message: error.message } });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (mode === 'silent') return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  void handle(message);
});
