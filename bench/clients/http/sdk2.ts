// The official 2.x client over its StreamableHTTPClientTransport: its default legacy mode, or
// `versionNegotiation: { mode: 'auto' }` (server/discover first) for the modern era.
import { connectOfficial } from '../official.js';
import { CLIENT_INFO, type ClientId, once } from '../types.js';
import type { HttpClientKind } from './types.js';

const load = once(async () => {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  return { Client, StreamableHTTPClientTransport };
});

export function sdk2Http(id: ClientId, mode: 'legacy' | 'auto'): HttpClientKind {
  return {
    id,
    label: `official 2.x StreamableHTTPClientTransport (${mode})`,
    load,
    async connect(server) {
      const { Client, StreamableHTTPClientTransport } = await load();
      const client = new Client(CLIENT_INFO, mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {});
      return connectOfficial(
        client,
        new StreamableHTTPClientTransport(new URL(server.url)) as never,
        server.pid,
      );
    },
  };
}
