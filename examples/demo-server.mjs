#!/usr/bin/env node
// A small dual-era MCP server in plain Node (no SDK), for `npm start` and for trying the client.
// Modern (2026-07-28): answers server/discover and reads each request's _meta.
// Legacy (2025-11-25 and earlier): answers initialize. Exits when stdin ends.
import { createInterface } from 'node:readline';

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const serverInfo = { name: 'conduit-demo', version: '1.0.0' };
const capabilities = { tools: {}, resources: {}, prompts: {} };
const instructions = 'A demo server: count down with progress, add numbers, read the about page.';

const tools = [
  {
    name: 'countdown',
    description: 'Counts down from a number, one progress notification per step',
    inputSchema: {
      type: 'object',
      properties: { from: { type: 'integer', minimum: 1, maximum: 20 }, delayMs: { type: 'integer' } },
      required: ['from'],
    },
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  },
];
const resources = [{ uri: 'demo://about', name: 'about', mimeType: 'text/plain' }];
const prompts = [
  { name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] },
];

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class InvalidParams extends Error {
  code = -32602;
}

async function callTool(params) {
  const args = params.arguments ?? {};
  if (params.name === 'countdown') {
    const from = Number(args.from);
    if (!Number.isInteger(from) || from < 1 || from > 20)
      throw new InvalidParams('from must be an integer from 1 to 20');
    const token = params._meta?.progressToken;
    for (let step = 1; step <= from; step++) {
      await sleep(args.delayMs ?? 150);
      if (token !== undefined) {
        const message = `${from - step}...`;
        write({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: from, message },
        });
      }
    }
    return { content: [{ type: 'text', text: `Lift-off after ${from} steps!` }] };
  }
  if (params.name === 'add') {
    if (typeof args.a !== 'number' || typeof args.b !== 'number') {
      return { content: [{ type: 'text', text: 'a and b must be numbers' }], isError: true };
    }
    const sum = args.a + args.b;
    return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
  }
  throw new InvalidParams(`Unknown tool: ${params.name}`);
}

const methods = {
  'tools/list': () => ({ tools }),
  'tools/call': callTool,
  'resources/list': () => ({ resources }),
  'resources/templates/list': () => ({ resourceTemplates: [] }),
  'resources/read': (params) => {
    if (params.uri !== 'demo://about') throw new InvalidParams(`Unknown resource: ${params.uri}`);
    return {
      contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'ConduitMCP demo server, plain Node.' }],
    };
  },
  'prompts/list': () => ({ prompts }),
  'prompts/get': (params) => {
    if (params.name !== 'greet') throw new InvalidParams(`Unknown prompt: ${params.name}`);
    const name = params.arguments?.name ?? 'world';
    return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] };
  },
  ping: () => ({}),
};

const CACHEABLE = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
]);

async function handle(message) {
  const { id, method, params = {} } = message;
  if (id === undefined || method === undefined) return; // notifications and answers need no reply
  try {
    if (method === 'server/discover') {
      if (params._meta?.[VERSION_KEY] !== MODERN) {
        const data = { supported: [MODERN, ...LEGACY], requested: params._meta?.[VERSION_KEY] };
        write({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data } });
        return;
      }
      const result = {
        resultType: 'complete',
        supportedVersions: [MODERN, ...LEGACY],
        capabilities,
        instructions,
      };
      write({
        jsonrpc: '2.0',
        id,
        result: {
          ...result,
          ttlMs: 0,
          cacheScope: 'public',
          _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
        },
      });
      return;
    }
    if (method === 'initialize') {
      const version = LEGACY.includes(params.protocolVersion) ? params.protocolVersion : LEGACY[0];
      write({
        jsonrpc: '2.0',
        id,
        result: { protocolVersion: version, capabilities, serverInfo, instructions },
      });
      return;
    }
    const handler = methods[method];
    if (!handler) {
      write({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    const result = await handler(params);
    const modern = params._meta?.[VERSION_KEY] !== undefined;
    const hints = modern && CACHEABLE.has(method) ? { ttlMs: 0, cacheScope: 'public' } : {};
    write({ jsonrpc: '2.0', id, result: modern ? { resultType: 'complete', ...result, ...hints } : result });
  } catch (error) {
    write({ jsonrpc: '2.0', id, error: { code: error.code ?? -32603, message: error.message } });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  void handle(message);
});
