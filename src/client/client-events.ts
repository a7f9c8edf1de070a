import type { EventEmitter } from 'node:events';
import { attributeTo } from '../attribution.js';
import { channels } from '../diagnostics.js';
import type { CloseReason } from '../transport/transport.js';
import type { NotificationEvents } from './notification-router.js';
import type { ListChangedEvent, Subscriptions } from './subscriptions.js';
import type { LifecycleEvents } from './supervisor.js';
import type { ClientWarning } from './warnings.js';

/**
 * The Supervisor's events (`booted`, `ready`, `disconnected`, `reconnecting`, `closed`,
 * `notification`), and what the Client reads from the notifications.
 */
export interface ClientEvents extends LifecycleEvents, NotificationEvents {
  /** An optional step failed (a refused `logging/setLevel`, a failed listen stream); still connected. */
  warning: [warning: ClientWarning];
}

const isListChangedEvent = (event: string | symbol): event is ListChangedEvent =>
  event === 'toolsListChanged' || event === 'resourcesListChanged' || event === 'promptsListChanged';

/** Tells the subscriptions which list-change events someone listens to (a modern server sends them only on request). */
export function watchListListeners(emitter: EventEmitter, subscriptions: () => Subscriptions): void {
  emitter.on('newListener', (event: string | symbol) => {
    if (isListChangedEvent(event)) subscriptions().setListWanted(event, true);
  });
  emitter.on('removeListener', (event: string | symbol) => {
    if (isListChangedEvent(event) && emitter.listenerCount(event) === 0)
      subscriptions().setListWanted(event, false);
  });
}

/** Before a lifecycle event goes out: its error (a close reason's, a reconnect's) names the server; `closed` is published. */
export function prepareLifecycleEvent(event: string, args: unknown[], server: string): void {
  attributeTo((args[0] as { error?: unknown } | undefined)?.error, server);
  if (event === 'closed' && channels.clientClosed.hasSubscribers) {
    channels.clientClosed.publish({ server, reason: args[0] as CloseReason | undefined });
  }
}
