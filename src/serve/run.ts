import { once } from 'node:events';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ClientHandlers, ClientPool } from '../index.js';
import { DirectCalls } from './direct-calls.js';
import { Gateway, type GatewaySettings } from './gateway.js';
import { hostServer } from './host-server.js';
import { HostStdioWire } from './host-stdio.js';
import { type HttpServeOptions, serveHttp } from './http.js';

/** What `conduit-mcp serve` runs: the pool, the gateway's settings, and where it serves. */
export interface RunGatewayOptions {
  /** Makes the pool, given the handlers that forward its servers' requests to the host. */
  readonly makePool: (handlers: ClientHandlers) => ClientPool;
  /** The gateway's serverInfo, filters and timeouts. */
  readonly settings: GatewaySettings;
  /** Streamable HTTP; undefined: stdio. */
  readonly http: HttpServeOptions | undefined;
  /** Aborted by the command's signals: the gateway stops and closes every server. */
  readonly signal: AbortSignal;
  /** A line for the operator, on stderr (stdout is the host's in stdio mode). */
  readonly say: (text: string) => void;
}

/**
 * Serves until the host closes stdin (stdio), sends what cannot be read (`host-broken`: a line
 * over 10 MiB), or the signal aborts; then closes every server of the pool (each on its shutdown
 * schedule) before it resolves. Resolves with why it stopped.
 */
export async function runGateway(
  options: RunGatewayOptions,
): Promise<'stdin-closed' | 'host-broken' | 'stopped'> {
  const gateway = new Gateway(options.makePool, options.settings);
  const { pool } = gateway;
  for (const warning of pool.warnings) {
    if (!/\.(allowTools|denyTools) is not a setting/.test(warning)) options.say(`warning: ${warning}`);
  }
  pool.on('serverError', ({ server, error, state }) =>
    options.say(`${server} is ${state}: ${error.message}`),
  );
  const stopped = once(options.signal, 'abort').then(() => 'stopped' as const);
  const connecting = pool.connect();
  try {
    if (options.http === undefined) {
      const wire = new HostStdioWire();
      const direct = new DirectCalls(gateway, wire);
      const handle = serveStdio(
        () => {
          const server = hostServer(gateway);
          direct.host = server;
          return server;
        },
        { transport: wire, onerror: (error) => options.say(`stdio: ${error.message}`) },
      );
      const hostGone = wire.closed.then((how) =>
        how === 'ended' ? ('stdin-closed' as const) : ('host-broken' as const),
      );
      const why = await Promise.race([hostGone, stopped]);
      await handle.close();
      return why;
    }
    const listening = await serveHttp(gateway, options.http);
    options.say(`serving ${pool.servers.length} server(s) at ${listening.url}`);
    await connecting;
    const why = await stopped;
    await listening.close();
    return why;
  } finally {
    await pool.close();
  }
}
