// The official 1.x client over its StreamableHTTPClientTransport (legacy era only).
import { connectOfficial } from '../official.js';
import { CLIENT_INFO, once } from '../types.js';
import type { HttpClientKind } from './types.js';

const load = once(async () => {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return { Client, StreamableHTTPClientTransport };
});

export const sdk1Http: HttpClientKind = {
  id: 'sdk1',
  label: 'official 1.x StreamableHTTPClientTransport',
  load,
  async connect(server) {
    const { Client, StreamableHTTPClientTransport } = await load();
    return connectOfficial(
      new Client(CLIENT_INFO),
      new StreamableHTTPClientTransport(new URL(server.url)) as never,
      server.pid,
    );
  },
};
