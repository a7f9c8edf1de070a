// A fixed number of tools/call echo calls through one build of conduit-mcp and nothing else, for
// instruction counts (valgrind --tool=callgrind counts the same for the same work, whatever else
// runs on the machine). Plain Node, no tsx, so that the count holds little besides the calls.
//
//   node bench/calls.mjs <dir of a built index.js> <legacy|modern> <calls> [in-flight]
//   bench/instructions.sh compares two builds: instructions per call = (count(N) - count(0)) / N
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [directory, era = 'modern', callsText = '1000', inFlightText = '1'] = process.argv.slice(2);
if (!directory) throw new Error('usage: node bench/calls.mjs <dir> <legacy|modern> <calls> [in-flight]');
const { Client } = await import(pathToFileURL(path.resolve(directory, 'index.js')).href);
const server = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.mjs');
const client = new Client({
  name: 'bench',
  clientInfo: { name: 'conduit-bench', version: '1.0.0' },
  transport: { type: 'stdio', command: process.execPath, args: [server, '--mode', era] },
});
await client.connect();
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
