import { debug } from '../../diagnostics.js';
import type { JsonRpcRequest } from '../../jsonrpc/messages.js';
import type { Connection } from '../connection.js';
import { LegacySession } from './legacy.js';
import type { ModernSession } from './modern.js';
import type { Session } from './session.js';

/** Server requests held until the era is known; later ones are dropped (a debug line counts them). */
export const MAX_HELD_REQUESTS = 32;

/**
 * Holds the server requests that arrive on a fresh connection before the era is known;
 * `release` finishes the chosen session's handshake and answers them (legacy) or drops them (modern).
 */
export function holdEarlyRequests(connection: Connection): {
  release(session: Session, server: string): Session;
} {
  const held: JsonRpcRequest[] = [];
  let dropped = 0;
  connection.onRequest = (request) => {
    if (held.length < MAX_HELD_REQUESTS) held.push(request);
    else dropped++;
  };
  return {
    release(session, server) {
      if (dropped > 0) {
        debug(
          '%s: dropped %d requests the server sent before the era was known (%d held)',
          server,
          dropped,
          MAX_HELD_REQUESTS,
        );
      }
      if (session instanceof LegacySession) {
        session.finishHandshake();
        for (const request of held) session.answer(request);
      } else {
        connection.onRequest = undefined;
        if (held.length > 0) debug('%s: dropped %d requests from a modern server', server, held.length);
        (session as ModernSession).finishHandshake();
      }
      return session;
    },
  };
}
