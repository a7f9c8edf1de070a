import { ConfigError, UsageError } from '../../errors.js';
import { at, describe, rejectUnknownKeys } from '../../validate.js';
import { STDIO_DISCOVERY } from '../stdio/stdio-kind.js';
import type { Transport, TransportKind } from '../transport.js';
import { CheckedTransport, checkTransportShape } from './checked-transport.js';

/**
 * `{ type: 'custom', create }`: a transport of your own. `create` is called for each connection
 * attempt (the first, and every restart) and must return a new, unstarted object implementing
 * the exported `Transport` interface; the supervisor, era detection, the cache and every other
 * guarantee work over it. Era detection reads it as it reads stdio (no answer to the probe, or
 * an error, means a legacy server); set the Client's `protocol` to skip detection.
 */
export interface CustomTransportSpec {
  /** Always `'custom'`. */
  readonly type: 'custom';
  /** Returns a new, unstarted transport; called for each connection attempt. */
  readonly create: () => Transport;
}

export const customKind: TransportKind = {
  type: 'custom',
  resolve(raw, { name, keyPrefix }) {
    rejectUnknownKeys(raw, ['type', 'create'], keyPrefix);
    const create = raw.create;
    if (typeof create !== 'function') {
      const key = at(keyPrefix, 'create');
      throw new ConfigError(
        key,
        `${key} must be a function that returns a new Transport for each connection attempt, got ${describe(create)}`,
      );
    }
    const made = new WeakSet<object>();
    return {
      kind: 'custom',
      discovery: STDIO_DISCOVERY,
      createTransport: () => {
        const transport: unknown = create();
        checkTransportShape(transport, name);
        if (made.has(transport)) {
          throw new UsageError(
            'transport.create() returned a transport it returned before: a transport starts only once, so return a new one each time',
            { server: name },
          );
        }
        made.add(transport);
        return new CheckedTransport(transport, name);
      },
      // A factory that breaks its contract does not heal by trying again.
      isPermanentFailure: (error) => error instanceof UsageError,
    };
  },
};
