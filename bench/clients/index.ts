// Every client the bench compares, by id. Adding one: a file beside this one that exports a
// ClientKind (see raw.ts for the smallest), and a line here.
import { conduit } from './conduit.js';
import { rawPipe } from './raw.js';
import { SDK1_VERSION, sdk1 } from './sdk1.js';
import { SDK2_VERSION, sdk2 } from './sdk2.js';
import type { ClientId, ClientKind } from './types.js';

export * from './types.js';
export { SDK1_VERSION, SDK2_VERSION };

export const CLIENTS: Record<ClientId, ClientKind> = {
  // The floor spawns as conduit-mcp does (its own session and process group, on POSIX), so that
  // both servers are scheduled alike; raw-attached spawns as the official clients do (see raw.ts).
  raw: rawPipe('raw', 'raw pipe', process.platform !== 'win32'),
  'raw-attached': rawPipe('raw-attached', 'raw pipe, server in our session', false),
  conduit: conduit('conduit', 'conduit-mcp', 'auto'),
  'conduit-legacy': conduit('conduit-legacy', 'conduit-mcp', 'legacy'),
  'conduit-baseline': conduit('conduit-baseline', 'conduit-mcp (BENCH_CONDUIT_BASELINE)', 'auto', true),
  sdk1,
  sdk2: sdk2('sdk2', `official 2.x (client ${SDK2_VERSION})`, 'legacy'),
  'sdk2-auto': sdk2('sdk2-auto', `official 2.x (client ${SDK2_VERSION})`, 'auto'),
  'sdk2-auto-3s': sdk2('sdk2-auto-3s', `official 2.x (client ${SDK2_VERSION})`, 'auto', 3000),
};
