import { ConfigError } from '../errors.js';
import { at, describe } from '../validate.js';
import { httpKind } from './http/http-kind.js';
import type { HttpOptions } from './http/options.js';
import type { StdioOptions } from './stdio/options.js';
import { stdioKind } from './stdio/stdio-kind.js';
import type { ResolvedTransportSpec, TransportKind, TransportSpecContext } from './transport.js';

/** A transport spec: where the server runs, and how to reach it. */
export type TransportSpec =
  | ({ readonly type: 'stdio' } & StdioOptions)
  | ({ readonly type: 'http' } & HttpOptions);

/** Every transport kind, by the `type` of its spec. A new kind is one module and one entry here. */
const KINDS = new Map<string, TransportKind>([
  [stdioKind.type, stdioKind],
  [httpKind.type, httpKind],
]);

/**
 * Adds a kind outside the library's own list (the tests' in-memory transport). Not exported by
 * the package: a kind of our own belongs in KINDS.
 */
export function registerTransportKind(kind: TransportKind): void {
  if (KINDS.has(kind.type)) throw new Error(`the transport kind ${kind.type} is registered already`);
  KINDS.set(kind.type, kind);
}

/** The library's own kinds, which a wrong `type` is told about. */
const OWN_TYPES = [...KINDS.keys()];

function expectedTypes(): string {
  const types = OWN_TYPES.map((type) => `'${type}'`);
  return types.length === 1 ? `${types[0]} (the only transport so far)` : `one of ${types.join(', ')}`;
}

/** Resolves a raw transport spec once, by its `type`, into something that creates transports. */
export function resolveTransportSpec(
  raw: Record<string, unknown>,
  context: TransportSpecContext,
): ResolvedTransportSpec {
  const kind = typeof raw.type === 'string' ? KINDS.get(raw.type) : undefined;
  if (!kind) {
    const key = at(context.keyPrefix, 'type');
    throw new ConfigError(key, `${key} must be ${expectedTypes()}, got ${describe(raw.type)}`);
  }
  return kind.resolve(raw, context);
}
