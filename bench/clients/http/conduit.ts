// conduit-mcp over its HTTP transport: `protocol: 'auto'` (server/discover first) for the modern
// era, `protocol: 'legacy'` (initialize) for the legacy one, as the bench server serves both.
import { connectConduit, loadConduit } from '../conduit.js';
import { CLIENT_INFO } from '../types.js';
import { HTTP_REQUEST_TIMEOUT_MS, type HttpClientKind } from './types.js';

type Library = Awaited<ReturnType<typeof loadConduit>>;
let library: Library | undefined;
// The scenario loads the library before it times anything: a sample then takes the Client class
// as it is, with no await of its own (raw's connect has none either).
const load = async (): Promise<Library> => {
  library ??= await loadConduit();
  return library;
};

export const conduitHttp: HttpClientKind = {
  id: 'conduit',
  label: 'conduit-mcp (HttpTransport)',
  load,
  async connect(server, era) {
    const { Client } = library ?? (await load());
    const client = new Client({
      name: 'bench',
      clientInfo: CLIENT_INFO,
      protocol: era === 'modern' ? 'auto' : 'legacy',
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      transport: { type: 'http', url: server.url },
    });
    return await connectConduit(client, () => server.pid);
  },
};
