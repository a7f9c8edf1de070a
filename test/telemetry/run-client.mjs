// A host process for test/telemetry/optional-peer.test.ts: connects a Client of the built package
// (`conduit-mcp`, as the project running it resolves it) to the trace server, telemetry as
// argv[3] says (`on` or `off`), calls the `trace` tool, and prints one JSON line: what the server
// saw, or the error connect() rejected with.
import { Client } from 'conduit-mcp';

const [traceServer, mode] = process.argv.slice(2);
const client = new Client({
  name: 'host',
  transport: { type: 'stdio', command: process.execPath, args: [traceServer] },
  ...(mode === 'on' && { telemetry: true }),
});
try {
  await client.connect();
  const result = await client.callTool({ name: 'trace' });
  console.log(JSON.stringify({ seen: JSON.parse(result.content[0].text) }));
} catch (error) {
  console.log(JSON.stringify({ error: { name: error.name, key: error.key, message: error.message } }));
} finally {
  await client.close();
}
