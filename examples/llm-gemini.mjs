// The demo server's tools as Gemini function declarations (the OpenAPI subset Gemini takes), and
// one function call run. Runs without a network or a key: `npm run build && node examples/llm-gemini.mjs`.
// With a real model, pass `{ functionDeclarations }` in `tools` and answer each `functionCall`
// part with the returned `functionResponse` part.
import path from 'node:path';
import { ClientPool } from 'conduit-mcp';
import { executeToolCall, toolsFor } from 'conduit-mcp/llm';

const demo = path.join(import.meta.dirname, 'demo-server.mjs');
const pool = new ClientPool({
  servers: { demo: { transport: { type: 'stdio', command: process.execPath, args: [demo] } } },
});
try {
  await pool.connect();

  const functionDeclarations = await toolsFor('gemini', pool, {
    onWarning: (warning) => console.error(`left out ${warning.tool}: ${warning.reason}`),
  });
  console.log(JSON.stringify({ functionDeclarations }, null, 2));

  const part = await executeToolCall('gemini', pool, { name: 'demo__add', args: { a: 2, b: 40 } });
  console.log(JSON.stringify(part, null, 2));
} finally {
  await pool.close();
}
