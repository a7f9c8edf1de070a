// A bare HTTP front to a stdio server: plain node:http on 127.0.0.1 that starts the server and
// passes each POSTed message to it, parsing each message once (to give a request an id of its own
// and match the answer to it). No sessions, no checks, no limits, no MCP library: what the simplest
// bridge costs, beside `conduit-mcp serve --http` in the gateway's HTTP rows. It prints `serving 1 server(s) at <url>` on stderr,
// as the gateway does, and exits on SIGTERM.
//
//   node bench/http-relay.mjs <command> [args...]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
/** The HTTP response waiting for each id given to the server, with the host's own id. */
const waiting = new Map();
let nextId = 1;

let partial = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  partial += chunk;
  let end = partial.indexOf('\n');
  while (end !== -1) {
    const line = partial.slice(0, end);
    partial = partial.slice(end + 1);
    end = partial.indexOf('\n');
    if (line.trim() === '') continue;
    const message = JSON.parse(line);
    const entry = 'method' in message ? undefined : waiting.get(message.id);
    if (entry === undefined) continue;
    waiting.delete(message.id);
    message.id = entry.id;
    const text = JSON.stringify(message);
    entry.response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    entry.response.end(text);
  }
});

const server = createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405).end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (!('id' in message) || !('method' in message)) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      response.writeHead(202).end();
      return;
    }
    const id = nextId++;
    waiting.set(id, { id: message.id, response });
    message.id = id;
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`serving 1 server(s) at http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.on('SIGTERM', () => {
  child.kill('SIGTERM');
  server.close();
  server.closeAllConnections();
});
child.on('exit', () => process.exit(0));
