import { afterEach } from 'node:test';
import { Client, type ClientOptions } from '../../src/index.js';
import { nodeServer } from './fixtures.js';
import { stdinRecord } from './record.js';

export const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A Client of mcp.mjs with these flags, its stdin recorded; closed after the test. */
export function mcpClient(args: string[], extra: Partial<ClientOptions> = {}) {
  const record = stdinRecord();
  const client = new Client({
    name: 'fixture',
    transport: { type: 'stdio', ...nodeServer('mcp.mjs', ['--record', record.file, ...args], QUICK) },
    probeTimeout: 1000,
    reconnect: { initialDelay: 20, maxDelay: 100, jitter: 0, maxReconnects: 2 },
    ...extra,
  });
  clients.push(client);
  const events: Array<[string, unknown]> = [];
  for (const name of ['ready', 'disconnected', 'reconnecting', 'closed', 'warning'] as const) {
    client.on(name, (payload?: unknown) => events.push([name, payload]));
  }
  const count = (name: string) => events.filter(([event]) => event === name).length;
  return { client, record, events, count };
}

/** The responses the server read from the client (its stdin), in order. */
export function responsesIn(record: ReturnType<typeof stdinRecord>) {
  return record.read().filter((message) => message.method === undefined) as Array<{
    id: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  }>;
}

export const ERAS = ['legacy', 'modern'] as const;
