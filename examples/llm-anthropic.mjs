// The demo server's tools as Anthropic Messages tools, and one `tool_use` block run. Runs without a
// network or a key: `npm run build && node examples/llm-anthropic.mjs`. With a real model, pass
// `tools` to client.messages.create() and answer each `tool_use` block with the returned
// `tool_result` block in the next user message.
import path from 'node:path';
import { ClientPool } from 'conduit-mcp';
import { executeToolCall, toolsFor } from 'conduit-mcp/llm';

const demo = path.join(import.meta.dirname, 'demo-server.mjs');
const pool = new ClientPool({
  servers: { demo: { transport: { type: 'stdio', command: process.execPath, args: [demo] } } },
});
try {
  await pool.connect();

  const tools = await toolsFor('anthropic', pool);
  console.log(JSON.stringify(tools, null, 2));

  const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'demo__add', input: { a: 2, b: 40 } };
  const toolResult = await executeToolCall('anthropic', pool, toolUse, { maxResultTokens: 4_000 });
  console.log(JSON.stringify(toolResult, null, 2));
} finally {
  await pool.close();
}
