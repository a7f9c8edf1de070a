#!/usr/bin/env node
// A small dual-era MCP server in plain Node (no SDK), for `npm start` and for trying the client.
// Modern (2026-07-28): answers server/discover and reads each request's _meta.
// Legacy (2025-11-25 and earlier): answers initialize. Exits when stdin ends.
import { createInterface } from 'node:readline';

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const serverInfo = { name: 'conduit-demo', version: '1.0.0' };
const capabilities = { tools: {}, resources: {}, prompts: {}, completions: {} };
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
const resourceTemplates = [
  {
    uriTemplate: 'demo://notes/{topic}',
    name: 'notes',
    mimeType: 'text/plain',
    description: 'Notes on a topic',
  },
];
const prompts = [
  { name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] },
  {
    name: 'colleague',
    description: 'Introduces a colleague of a department',
    arguments: [
      { name: 'department', required: true },
      { name: 'name', required: true },
    ],
  },
];

// What completion/complete offers: names to greet, departments, each department's people (a
// completion that depends on the department already chosen: context.arguments), note topics.
const NAMES = ['Ada', 'Alan', 'Alonzo', 'Barbara', 'Edsger', 'Grace', 'Margaret'];
const STAFF = {
  Engineering: ['Ada', 'Alan', 'Grace'],
  Research: ['Alonzo', 'Barbara'],
  Sales: ['Margaret', 'Mary', 'Max'],
};
const TOPICS = ['mcp', 'progress', 'prompts', 'resources', 'tools'];

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

/** The values of one completion/complete request: those that start with what was typed (case ignored). */
function completionValues(params) {
  const { ref = {}, argument = {}, context } = params;
  let candidates = [];
  if (ref.type === 'ref/prompt' && ref.name === 'greet' && argument.name === 'name') candidates = NAMES;
  if (ref.type === 'ref/prompt' && ref.name === 'colleague') {
    if (argument.name === 'department') candidates = Object.keys(STAFF);
    if (argument.name === 'name') {
      const department = context?.arguments?.department;
      // Without the department there is nobody to offer yet: it narrows who works there.
      candidates = STAFF[department] ?? [];
    }
  }
  if (ref.type === 'ref/resource' && ref.uri === 'demo://notes/{topic}' && argument.name === 'topic') {
    candidates = TOPICS;
  }
  const typed = String(argument.value ?? '').toLowerCase();
  const values = candidates.filter((value) => value.toLowerCase().startsWith(typed));
  return { completion: { values, total: values.length, hasMore: false } };
}

const methods = {
  'tools/list': () => ({ tools }),
  'tools/call': callTool,
  'resources/list': () => ({ resources }),
  'resources/templates/list': () => ({ resourceTemplates }),
  'resources/read': (params) => {
    const topic = /^demo:\/\/notes\/([a-z]+)$/.exec(params.uri)?.[1];
    if (topic !== undefined && TOPICS.includes(topic)) {
      return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: `Notes on ${topic}.` }] };
    }
    if (params.uri !== 'demo://about') throw new InvalidParams(`Unknown resource: ${params.uri}`);
    return {
      contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'ConduitMCP demo server, plain Node.' }],
    };
  },
  'prompts/list': () => ({ prompts }),
  'prompts/get': (params) => {
    if (params.name === 'colleague') {
      const { department, name } = params.arguments ?? {};
      const text = `Introduce ${name}, who works in ${department}.`;
      return { messages: [{ role: 'user', content: { type: 'text', text } }] };
    }
    if (params.name !== 'greet') throw new InvalidParams(`Unknown prompt: ${params.name}`);
    const name = params.arguments?.name ?? 'world';
    return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] };
  },
  'completion/complete': completionValues,
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
