// conduit-mcp over its HTTP transport: `protocol: 'auto'` (server/discover first) for the modern
// era, `protocol: 'legacy'` (initialize) for the legacy one, as the bench server serves both.
import { connectConduit, loadBaseline, loadConduit } from '../conduit.js';
import type { ClientId } from '../types.js';
import { CLIENT_INFO } from '../types.js';
import { HTTP_REQUEST_TIMEOUT_MS, type HttpClientKind } from './types.js';

type Library = Awaited<ReturnType<typeof loadConduit>>;

function conduitHttpFrom(id: ClientId, label: string, loadLibrary: () => Promise<Library>): HttpClientKind {
  let library: Library | undefined;
  // The scenario loads the library before it times anything: a sample then takes the Client class
  // as it is, with no await of its own (raw's connect has none either).
  const load = async (): Promise<Library> => {
    library ??= await loadLibrary();
    return library;
  };
  return {
    id,
    label,
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
}

export const conduitHttp = conduitHttpFrom('conduit', 'conduit-mcp (HttpTransport)', loadConduit);
/** Another build (BENCH_CONDUIT_BASELINE), for before/after in one process. */
export const conduitHttpBaseline = conduitHttpFrom(
  'conduit-baseline',
  'conduit-mcp (BENCH_CONDUIT_BASELINE, HttpTransport)',
  loadBaseline,
);
