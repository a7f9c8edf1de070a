import type { LogLevel } from '../protocol/meta.js';
import { capabilitiesFor } from '../protocol/types.js';
import type { SessionContext } from './eras/session.js';
import type { ResolvedClientOptions } from './options.js';
import type { Root } from './roots.js';
import type { WarningSink } from './warnings.js';

/** What of a Client's state its sessions read as it changes. */
export interface ClientStateReaders {
  roots(): readonly Root[] | undefined;
  logLevel(): LogLevel | undefined;
  readonly warn: WarningSink;
}

/**
 * The settings every session of a Client shares: who the client is, its handlers (with `roots`
 * answered from the client's current roots when the option is set) and the capabilities they
 * declare.
 */
export function sessionContextFor(options: ResolvedClientOptions, state: ClientStateReaders): SessionContext {
  const hasRoots = options.roots !== undefined;
  const handlers = hasRoots
    ? { ...options.handlers, roots: async () => ({ roots: state.roots() }) }
    : options.handlers;
  return {
    name: options.name,
    clientInfo: options.clientInfo,
    handlers,
    capabilities: capabilitiesFor(handlers, {
      elicitationModes: options.elicitationModes,
      samplingTools: options.samplingTools,
      rootsListChanged: hasRoots,
    }),
    elicitationModes: options.elicitationModes,
    samplingTools: options.samplingTools,
    validateSchema: options.validateSchema,
    requestTimeout: options.requestTimeout,
    logLevel: state.logLevel,
    warn: state.warn,
  };
}
