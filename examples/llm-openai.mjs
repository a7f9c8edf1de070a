// The demo server's tools as OpenAI Chat Completions tools, and one tool call run as the model
// would send it. Runs without a network or a key: `npm run build && node examples/llm-openai.mjs`.
// With a real model, pass `tools` to client.chat.completions.create() and each `tool_calls` entry
// of its answer to executeToolCall, then append the returned message to `messages`.
import path from 'node:path';
import { ClientPool } from 'conduit-mcp';
import { executeToolCall, toolsFor } from 'conduit-mcp/llm';

const demo = path.join(import.meta.dirname, 'demo-server.mjs');
const pool = new ClientPool({
  servers: { demo: { transport: { type: 'stdio', command: process.execPath, args: [demo] } } },
});
try {
  await pool.connect();

  const tools = await toolsFor('openai', pool);
  console.log(JSON.stringify(tools, null, 2));

  // What a model answers with: a tool call whose arguments are JSON text.
  const call = {
    id: 'call_1',
    type: 'function',
    function: { name: 'demo__add', arguments: '{"a": 2, "b": 40}' },
  };
  const message = await executeToolCall('openai', pool, call, { maxResultBytes: 16_384 });
  console.log(JSON.stringify(message, null, 2));
} finally {
  await pool.close();
}
