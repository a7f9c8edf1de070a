// A plain MCP server that shows what trace context reached it. Over stdio by default; the same
// answers serve test/telemetry's HTTP servers through `answer` (exported).
//   --era modern|legacy   the era it speaks (legacy refuses server/discover); default modern
// Tools: `trace` returns the `traceparent`, `tracestate` and `baggage` of its request's `_meta`
// as JSON text; `tool-error` returns an isError result; `exit` exits the process (a restart).
// Any other tool is an unknown tool: JSON-RPC error -32602. `tools/list` and `ping` answer too.
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const MODERN = '2026-07-28';
const TOOLS = [
  { name: 'trace', inputSchema: { type: 'object' } },
  { name: 'tool-error', inputSchema: { type: 'object' } },
  { name: 'exit', inputSchema: { type: 'object' } },
];

/** The answer to one request, as a JSON-RPC message (undefined for a notification or `exit`). */
export function answer(message, era) {
  const { id, method, params } = message;
  if (id === undefined || method === undefined) return undefined;
  const ok = (result) => ({
    jsonrpc: '2.0',
    id,
    result: era === 'modern' ? { resultType: 'complete', ...result } : result,
  });
  const fail = (code, text) => ({ jsonrpc: '2.0', id, error: { code, message: text } });
  if (method === 'server/discover') {
    if (era !== 'modern') return fail(-32601, 'Method not found');
    return ok({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'trace-server', version: '1.0.0' } },
    });
  }
  if (method === 'initialize') {
    if (era !== 'legacy') return fail(-32601, 'Method not found');
    return ok({
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'trace-server', version: '1.0.0' },
    });
  }
  if (method === 'ping') return ok({});
  if (method === 'tools/list') return ok({ tools: TOOLS });
  if (method !== 'tools/call') return fail(-32601, `Method not found: ${method}`);
  const meta = params?._meta ?? {};
  if (params.name === 'trace') {
    const seen = { traceparent: meta.traceparent, tracestate: meta.tracestate, baggage: meta.baggage };
    return ok({ content: [{ type: 'text', text: JSON.stringify(seen) }] });
  }
  if (params.name === 'tool-error')
    return ok({ content: [{ type: 'text', text: 'it went wrong' }], isError: true });
  if (params.name === 'exit') return 'exit';
  return fail(-32602, `Unknown tool: ${params.name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { era: { type: 'string', default: 'modern' } } });
  createInterface({ input: process.stdin }).on('line', (line) => {
    const reply = answer(JSON.parse(line), values.era);
    if (reply === 'exit') process.exit(3);
    if (reply !== undefined) process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
}
