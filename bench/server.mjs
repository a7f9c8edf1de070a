// The bench server: a minimal MCP server in plain Node, no SDK, so that only client differences
// show. It must never be the bottleneck: fixed parts of every answer are serialised once, each
// answer is written with one write, and the answers to one chunk of requests leave in one syscall
// (stdout is corked while a chunk is handled).
//
//   node bench/server.mjs [--mode legacy|modern|legacy-silent] [--stop-reading-after-init]
//
// Modes:
//   legacy         2025-11-25 `initialize` handshake; unknown methods (server/discover too) get -32601
//   legacy-silent  the same, but unknown methods (server/discover too) get no answer at all
//   modern         2026-07-28: answers server/discover; every result carries resultType
// --stop-reading-after-init: once `notifications/initialized` arrives, never read stdin again (the
//   server that stops reading; the client's writes pile up).
// Tools: `echo` ({ text } -> one text block holding text) and `bytes` ({ bytes: N } -> a result
// whose whole JSON-RPC line is exactly N bytes, the newline excluded; the text is ASCII without
// escapes, see payloadText). The server exits on stdin EOF (a client that dies closes the pipe too),
// and once it stops reading, when orphaned. No timer runs while it reads: a periodic wake-up costs
// CPU, and a client that starts servers a few at a time would pay for it inside the window it times.
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    mode: { type: 'string', default: 'legacy' },
    'stop-reading-after-init': { type: 'boolean', default: false },
  },
});
const mode = flags.mode;
if (!['legacy', 'modern', 'legacy-silent'].includes(mode)) {
  process.stderr.write(`bench server: unknown mode ${mode}\n`);
  process.exit(2);
}
const modern = mode === 'modern';
const silentOnUnknown = mode === 'legacy-silent';
const stopReadingAfterInit = flags['stop-reading-after-init'];

/**
 * The text a `bytes` answer carries: this 64-character line, repeated and cut (no JSON escapes).
 * bench/clients.ts holds the same constant to check every answer.
 */
const PAYLOAD_UNIT = 'The quick brown fox jumps over the lazy dog; 0123456789 abcdefg ';

const serverInfo = { name: 'conduit-bench-server', version: '1.0.0' };
const capabilities = { tools: {} };
const resultType = modern ? '"resultType":"complete",' : '';

// ---- pre-serialised fixed parts ------------------------------------------------------------------

const ID_HEAD = '{"jsonrpc":"2.0","id":';
const initializeTail = `,"result":${JSON.stringify({
  protocolVersion: '2025-11-25',
  capabilities,
  serverInfo,
})}}\n`;
const discoverTail = `,"result":${JSON.stringify({
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities,
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
})}}\n`;
const tools = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'bytes',
    description: 'Returns a result whose JSON-RPC line is exactly N bytes.',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
  },
];
const toolsListTail = `,"result":${JSON.stringify(
  modern ? { resultType: 'complete', tools, ttlMs: 0, cacheScope: 'private' } : { tools },
)}}\n`;
const emptyTail = `,"result":{${modern ? '"resultType":"complete"' : ''}}}\n`;
const echoHead = `,"result":{${resultType}"content":[{"type":"text","text":`;
const echoTail = '}]}}\n';
const bytesHead = `,"result":{${resultType}"content":[{"type":"text","text":"`;
const bytesTail = Buffer.from('"}]}}\n');
const errorTail = (code, message) => `,"error":${JSON.stringify({ code, message })}}\n`;
const methodNotFoundTail = errorTail(-32601, 'Method not found');

/** Grown on demand, never shrunk: the longest text asked so far (ASCII, so 1 byte per character). */
let payload = Buffer.alloc(0);
function payloadOf(length) {
  if (payload.length < length) {
    const units = Math.ceil(length / PAYLOAD_UNIT.length);
    payload = Buffer.from(PAYLOAD_UNIT.repeat(units));
  }
  return payload.subarray(0, length);
}

// ---- answers -------------------------------------------------------------------------------------

const out = process.stdout;
const send = (text) => out.write(text);
const answer = (id, tail) => send(ID_HEAD + JSON.stringify(id) + tail);

function callTool(id, params) {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (name === 'echo') {
    send(ID_HEAD + JSON.stringify(id) + echoHead + JSON.stringify(String(args.text)) + echoTail);
    return;
  }
  if (name === 'bytes') {
    const size = Number(args.bytes);
    const head = Buffer.from(ID_HEAD + JSON.stringify(id) + bytesHead);
    const textLength = size - head.length - (bytesTail.length - 1);
    if (!Number.isSafeInteger(size) || textLength < 0) {
      answer(id, errorTail(-32602, `bytes must be an integer >= ${head.length + bytesTail.length - 1}`));
      return;
    }
    // One buffer, one write: head, text, tail and newline.
    const line = Buffer.allocUnsafe(size + 1);
    head.copy(line, 0);
    payloadOf(textLength).copy(line, head.length);
    bytesTail.copy(line, head.length + textLength);
    send(line);
    return;
  }
  answer(id, errorTail(-32602, `Unknown tool: ${name}`));
}

function handle(message) {
  const { id, method } = message;
  if (id === undefined) {
    if (method === 'notifications/initialized' && stopReadingAfterInit) stopReading();
    return;
  }
  if (method === undefined) return; // a response to a request we never send
  switch (method) {
    case 'tools/call':
      return callTool(id, message.params);
    case 'initialize':
      if (modern) return answer(id, methodNotFoundTail);
      return answer(id, initializeTail);
    case 'server/discover':
      if (modern) return answer(id, discoverTail);
      if (silentOnUnknown) return;
      return answer(id, methodNotFoundTail);
    case 'tools/list':
      return answer(id, toolsListTail);
    case 'ping':
      return answer(id, emptyTail);
    default:
      if (silentOnUnknown) return;
      return answer(id, methodNotFoundTail);
  }
}

// ---- input -------------------------------------------------------------------------------------

let partial = '';
let reading = true;
function onData(chunk) {
  let text = partial + chunk;
  partial = '';
  let start = 0;
  let newline = text.indexOf('\n');
  out.cork();
  try {
    while (newline !== -1 && reading) {
      const line = text.slice(start, newline);
      start = newline + 1;
      newline = text.indexOf('\n', start);
      if (line.length === 0) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      handle(message);
    }
  } finally {
    out.uncork();
  }
  if (!reading) return;
  text = text.slice(start);
  partial = text;
}

function stopReading() {
  reading = false;
  process.stdin.off('data', onData);
  process.stdin.pause();
  // Nothing reads stdin any more, so its EOF cannot tell that the client is gone: stay up until
  // signalled, or until orphaned (re-parented).
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 250);
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', onData);
process.stdin.on('end', () => process.exit(0));
out.on('error', () => process.exit(0)); // the client went away
