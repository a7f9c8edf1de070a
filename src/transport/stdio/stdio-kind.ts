import type { DiscoveryRules, TransportKind } from '../transport.js';
import { resolveStdioOptions, type StdioOptions } from './options.js';
import { StdioTransport } from './stdio-transport.js';

/**
 * A legacy stdio server either stays silent until `initialize`, answers the probe with some
 * error (-32601, -32600...), or exits: over stdio every failure to answer as a modern server
 * means legacy.
 */
export const STDIO_DISCOVERY: DiscoveryRules = {
  probeTimeout: 3000,
  probeTimeoutMeansLegacy: true,
  probeErrorMeansLegacy: () => true,
  closeDuringProbeMeansLegacy: true,
};

/** `{ type: 'stdio', ...StdioOptions }`: one local server process per (re)start. */
export const stdioKind: TransportKind = {
  type: 'stdio',
  resolve(raw, { name, keyPrefix }) {
    // Checked now, so that the Client's construction throws; each start checks this copy again,
    // so what the caller changes in its arrays later does not reach a restart.
    resolveStdioOptions(raw, keyPrefix, process.platform, process.env.PATHEXT);
    const spec = snapshot(raw) as unknown as StdioOptions;
    return {
      kind: 'stdio',
      discovery: STDIO_DISCOVERY,
      createTransport: () => new StdioTransport(spec, { name, keyPrefix }),
    };
  },
};

/** The spec with its own copies of `args` and `env` (pairs included); values such as Secrets are kept as they are. */
function snapshot(raw: Record<string, unknown>): Record<string, unknown> {
  const { args, env } = raw;
  return {
    ...raw,
    ...(Array.isArray(args) ? { args: [...args] } : {}),
    ...(Array.isArray(env)
      ? { env: env.map((pair) => (Array.isArray(pair) ? [...pair] : pair)) }
      : typeof env === 'object' && env !== null
        ? { env: Object.assign(Object.create(Object.getPrototypeOf(env)), env) }
        : {}),
  };
}
