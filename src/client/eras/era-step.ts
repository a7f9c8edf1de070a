import { channels, debug } from '../../diagnostics.js';

/** One step of era detection: a debug line, and the `conduit-mcp:client:era` channel (--verbose). */
export function eraStep(server: string, step: string, detail: string): void {
  debug('%s: %s', server, detail);
  if (channels.era.hasSubscribers) channels.era.publish({ server, step, detail });
}
