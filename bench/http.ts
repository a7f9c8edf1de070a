// HTTP benchmarks: conduit-mcp (both eras) against the official 1.x and 2.x Streamable HTTP
// clients and a raw floor (undici's request on one keep-alive Agent, JSON-RPC by hand, no MCP
// library), all against one plain-Node bench server (bench/http-server.mjs) in its own process.
// Usage: node --import tsx bench/http.ts [--quick]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { Client } from '../src/index.js';

const QUICK = process.argv.includes('--quick');
const SEQUENTIAL = QUICK ? 300 : 2000;
const CONCURRENT_TOTAL = QUICK ? 1024 : 5120;
const IN_FLIGHT = 256;
const BIG_CALLS = QUICK ? 10 : 40;
const CONNECTS = QUICK ? 5 : 20;

interface Bench {
  label: string;
  call(name: string, text?: string): Promise<string>;
  close(): Promise<void>;
}

async function startServer(sse: boolean) {
  const child = spawn(
    process.execPath,
    [path.join(import.meta.dirname, 'http-server.mjs'), ...(sse ? ['--sse'] : [])],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return { url, stop: () => child.kill() };
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

async function conduit(url: string, protocol: 'auto' | 'legacy'): Promise<Bench> {
  const client = new Client({
    name: 'bench',
    transport: { type: 'http', url },
    protocol,
    cache: false,
    requestTimeout: 120_000,
  });
  await client.connect();
  return {
    label: `conduit-mcp (${client.era})`,
    call: async (name, text) => textOf(await client.callTool({ name, arguments: { text } })),
    close: () => client.close(),
  };
}

async function sdk1(url: string): Promise<Bench> {
  const { Client: Sdk1 } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Sdk1({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    label: 'official 1.x (legacy)',
    call: async (name, text) =>
      textOf(await client.callTool({ name, arguments: { text } }, undefined, { timeout: 120_000 })),
    close: () => client.close(),
  };
}

async function sdk2(url: string): Promise<Bench> {
  const { Client: Sdk2, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Sdk2({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } } as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)) as never);
  return {
    label: 'official 2.x (auto)',
    call: async (name, text) =>
      textOf(await client.callTool({ name, arguments: { text } }, { timeout: 120_000 } as never)),
    close: () => client.close(),
  };
}

async function raw(url: string): Promise<Bench> {
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  let id = 0;
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  return {
    label: 'raw floor (undici, no MCP)',
    async call(name, text) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name, arguments: { text }, _meta: meta },
      });
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body,
      });
      const textBody = await response.body.text();
      const json = textBody.startsWith('data: ') ? textBody.slice(6).trim() : textBody;
      return textOf((JSON.parse(json) as { result: unknown }).result);
    },
    close: () => agent.close(),
  };
}

async function measure(run: () => Promise<void>, count: number): Promise<number> {
  const started = performance.now();
  await run();
  return count / ((performance.now() - started) / 1000);
}

async function scenario(bench: Bench) {
  for (let i = 0; i < 100; i++) await bench.call('echo', 'warm');
  const sequential = await measure(async () => {
    for (let i = 0; i < SEQUENTIAL; i++) await bench.call('echo', `s${i}`);
  }, SEQUENTIAL);
  const concurrent = await measure(async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < CONCURRENT_TOTAL) {
          next += 1;
          await bench.call('echo', 'c');
        }
      }),
    );
  }, CONCURRENT_TOTAL);
  const big = await measure(async () => {
    for (let i = 0; i < BIG_CALLS; i++) await bench.call('big');
  }, BIG_CALLS);
  return { sequential, concurrent, big };
}

const makers: Array<[string, (url: string) => Promise<Bench>]> = [
  ['raw', raw],
  ['conduit modern', (url) => conduit(url, 'auto')],
  ['conduit legacy', (url) => conduit(url, 'legacy')],
  ['sdk1', sdk1],
  ['sdk2', sdk2],
];

console.log(
  `HTTP bench: Node ${process.version}, sequential ${SEQUENTIAL}, ${IN_FLIGHT} in flight x ${CONCURRENT_TOTAL}, 1 MiB x ${BIG_CALLS}, connect x ${CONNECTS}`,
);
for (const sse of [false, true]) {
  const server = await startServer(sse);
  try {
    console.log(`\nanswers as ${sse ? 'SSE' : 'JSON'}`);
    console.log(
      'client                        seq calls/s  256-in-flight calls/s  1 MiB calls/s  connect ms',
    );
    for (const [, make] of makers) {
      const bench = await make(server.url);
      const figures = await scenario(bench);
      await bench.close();
      const connectStarted = performance.now();
      for (let i = 0; i < CONNECTS; i++) await (await make(server.url)).close();
      const connectMs = (performance.now() - connectStarted) / CONNECTS;
      console.log(
        `${bench.label.padEnd(30)}${figures.sequential.toFixed(0).padStart(11)}${figures.concurrent.toFixed(0).padStart(23)}${figures.big.toFixed(1).padStart(15)}${connectMs.toFixed(1).padStart(12)}`,
      );
    }
  } finally {
    server.stop();
  }
}
