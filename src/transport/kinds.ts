import { ConfigError } from '../errors.js';
import { at, describe } from '../validate.js';
import { type CustomTransportSpec, customKind } from './custom/custom-kind.js';
import { httpKind } from './http/http-kind.js';
import type { HttpOptions } from './http/options.js';
import type { StdioOptions } from './stdio/options.js';
import { stdioKind } from './stdio/stdio-kind.js';
import type { ResolvedTransportSpec, TransportKind, TransportSpecContext } from './transport.js';

/** A transport spec: where the server runs, and how to reach it. */
export type TransportSpec =
  | ({
      /** A local server, spawned: the rest is {@link StdioOptions}. */
      readonly type: 'stdio';
    } & StdioOptions)
  | ({
      /** A remote server over Streamable HTTP: the rest is {@link HttpOptions}. */
      readonly type: 'http';
    } & HttpOptions)
  | CustomTransportSpec;

/** Every transport kind, by the `type` of its spec. A new kind is one module and one entry here. */
const KINDS = new Map<string, TransportKind>([
  [stdioKind.type, stdioKind],
  [httpKind.type, httpKind],
  [customKind.type, customKind],
]);

/** Resolves a raw transport spec once, by its `type`, into something that creates transports. */
export function resolveTransportSpec(
  raw: Record<string, unknown>,
  context: TransportSpecContext,
): ResolvedTransportSpec {
  const kind = typeof raw.type === 'string' ? KINDS.get(raw.type) : undefined;
  if (!kind) {
    const key = at(context.keyPrefix, 'type');
    const types = [...KINDS.keys()].map((type) => `'${type}'`).join(', ');
    throw new ConfigError(key, `${key} must be one of ${types}, got ${describe(raw.type)}`);
  }
  return kind.resolve(raw, context);
}
