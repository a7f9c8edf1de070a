#!/usr/bin/env node
// A small dual-era MCP server in plain Node (no SDK) whose tools ask the client for input:
// elicitation (a form), sampling (a model's answer) and roots (the client's folders).
// Legacy (2025-11-25 and earlier): it sends elicitation/create, sampling/createMessage and
// roots/list as requests to the client and waits for the answers.
// Modern (2026-07-28): it answers the tool call with an input_required result, and the client
// calls again with inputResponses. Exits when stdin ends.
import { createInterface } from 'node:readline';

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const serverInfo = { name: 'conduit-input-demo', version: '1.0.0' };
const capabilities = { tools: {} };

const tools = [
  {
    name: 'delete_file',
    description: 'Deletes nothing: asks the user to confirm first (elicitation)',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'summarize',
    description: "Summarizes a text with the client's model (sampling)",
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'show_roots',
    description: 'Lists the folders the client offers (roots)',
    inputSchema: { type: 'object', properties: {} },
  },
];

/** What each tool asks the client for: one input request, then a result made from the answer. */
const inputs = {
  delete_file: (args) => ({
    method: 'elicitation/create',
    params: {
      message: `Delete ${args.path}?`,
      requestedSchema: {
        type: 'object',
        properties: {
          confirm: { type: 'boolean', title: 'Really delete?' },
          reason: { type: 'string', default: 'no reason given' },
        },
        required: ['confirm'],
      },
    },
  }),
  summarize: (args) => ({
    method: 'sampling/createMessage',
    params: {
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${args.text}` } }],
      maxTokens: 100,
    },
  }),
  show_roots: () => ({ method: 'roots/list', params: {} }),
};

const outcomes = {
  delete_file: (args, answer) =>
    answer.action === 'accept' && answer.content?.confirm === true
      ? `Deleted ${args.path} (${answer.content.reason}).`
      : `Kept ${args.path} (${answer.action}).`,
  summarize: (_args, answer) => `Summary by ${answer.model}: ${answer.content?.text}`,
  show_roots: (_args, answer) => `Roots: ${answer.roots.map((root) => root.uri).join(', ') || 'none'}`,
};

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

// Legacy: requests this server sent to the client, by id, waiting for their answers.
const waiting = new Map();
let nextId = 0;
function askClient(request) {
  const id = `input-${++nextId}`;
  write({ jsonrpc: '2.0', id, ...request });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function callTool(params, modern) {
  const args = params.arguments ?? {};
  const ask = inputs[params.name];
  if (!ask) throw Object.assign(new Error(`Unknown tool: ${params.name}`), { code: -32602 });
  if (!modern) return text(outcomes[params.name](args, await askClient(ask(args))));
  const answer = params.inputResponses?.answer;
  if (answer === undefined) {
    // First round: say what input the call needs; the client calls again with inputResponses.
    return { resultType: 'input_required', inputRequests: { answer: ask(args) }, requestState: params.name };
  }
  return { resultType: 'complete', ...text(outcomes[params.name](args, answer)) };
}

async function handle(message) {
  const { id, method, params = {} } = message;
  if (method === undefined && id !== undefined) {
    // An answer to one of our requests.
    const pending = waiting.get(id);
    waiting.delete(id);
    if (message.error) pending?.reject(Object.assign(new Error(message.error.message), message.error));
    else pending?.resolve(message.result);
    return;
  }
  if (id === undefined) return; // notifications need no reply
  const modern = params._meta?.[VERSION_KEY] !== undefined;
  try {
    let result;
    if (method === 'server/discover') {
      if (params._meta?.[VERSION_KEY] !== MODERN) {
        const data = { supported: [MODERN, ...LEGACY], requested: params._meta?.[VERSION_KEY] };
        write({ jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data } });
        return;
      }
      result = {
        resultType: 'complete',
        supportedVersions: [MODERN, ...LEGACY],
        capabilities,
        _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
      };
    } else if (method === 'initialize') {
      const version = LEGACY.includes(params.protocolVersion) ? params.protocolVersion : LEGACY[0];
      result = { protocolVersion: version, capabilities, serverInfo };
    } else if (method === 'tools/list') {
      result = modern ? { resultType: 'complete', tools } : { tools };
    } else if (method === 'tools/call') {
      result = await callTool(params, modern);
    } else if (method === 'ping') {
      result = {};
    } else {
      write({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    write({ jsonrpc: '2.0', id, result });
  } catch (error) {
    // A client handler that failed: the tool call fails with its message.
    const failure = `the client could not answer: ${error.message}`;
    write({ jsonrpc: '2.0', id, result: { ...text(failure), isError: true } });
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
