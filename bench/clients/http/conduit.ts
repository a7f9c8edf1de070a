// conduit-mcp over its HTTP transport: `protocol: 'auto'` (server/discover first) for the modern
// era, `protocol: 'legacy'` (initialize) for the legacy one, as the bench server serves both.
import { connectConduit, loadConduit } from '../conduit.js';
import { CLIENT_INFO } from '../types.js';
import { HTTP_REQUEST_TIMEOUT_MS, type HttpClientKind } from './types.js';

const load = loadConduit;

export const conduitHttp: HttpClientKind = {
  id: 'conduit',
  label: 'conduit-mcp (HttpTransport)',
  load,
  async connect(server, era) {
    const { Client } = await load();
    const client = new Client({
      name: 'bench',
      clientInfo: CLIENT_INFO,
      protocol: era === 'modern' ? 'auto' : 'legacy',
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      transport: { type: 'http', url: server.url },
    });
    return connectConduit(client, () => server.pid);
  },
};
