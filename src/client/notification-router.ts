import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { LogMessage } from '../protocol/results.js';
import type { ResultCache } from './cache.js';
import type { Session } from './eras/session.js';
import type { Listed } from './listed.js';
import type { ListChangedEvent, Subscriptions } from './subscriptions.js';
import type { Task } from './tasks.js';

const LIST_CHANGED: Record<string, ListChangedEvent> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
};

/** The cached lists each change notification makes stale. */
const STALE_LISTS: Record<ListChangedEvent, string[]> = {
  toolsListChanged: ['tools/list'],
  resourcesListChanged: ['resources/list', 'resources/templates/list'],
  promptsListChanged: ['prompts/list'],
};

/** The Client events a notification can lead to. */
export interface NotificationEvents {
  /** A log message from the server (`notifications/message`); see the `logLevel` option. */
  log: [message: LogMessage];
  /** The server's tool list changed; the cached list is dropped. */
  toolsListChanged: [];
  /** The server's resource or template list changed; the cached lists are dropped. */
  resourcesListChanged: [];
  /** The server's prompt list changed; the cached list is dropped. */
  promptsListChanged: [];
  /** A subscribed resource changed (`subscribeResource`); read it again. */
  resourceUpdated: [
    event: {
      /** The resource's URI. */
      uri: string;
    },
  ];
  /** A task's status changed (`notifications/tasks/status`). */
  taskStatus: [task: Task];
}

/** What routing a notification reads and changes in its Client. */
export interface NotificationTarget {
  readonly session: Session | undefined;
  readonly cache: ResultCache | undefined;
  readonly listed: Listed;
  subscriptions(): Subscriptions;
  emit<E extends keyof NotificationEvents>(event: E, ...args: NotificationEvents[E]): void;
}

/**
 * What a Client makes of a server notification, after passing it on as `'notification'`: a log
 * message, a task's status, a list change (stale cache, forgotten list knowledge), a resource
 * update. Where change notifications come on listen streams (modern), only those of ours count.
 */
export function routeNotification(notification: JsonRpcNotification, target: NotificationTarget): void {
  const { method, params } = notification;
  if (method === 'notifications/message') {
    target.emit('log', params as unknown as LogMessage);
    return;
  }
  if (method === 'notifications/tasks/status') {
    if (typeof params?.taskId === 'string' && typeof params.status === 'string') {
      const { _meta: _ignored, ...task } = params;
      target.emit('taskStatus', task as unknown as Task);
    }
    return;
  }
  const onListenStreams = target.session?.changeNotifications === 'listen';
  if (onListenStreams && method === 'notifications/cancelled' && params?.requestId !== undefined) {
    target
      .subscriptions()
      .serverCancelled(
        params.requestId as string,
        typeof params.reason === 'string' ? params.reason : undefined,
      );
    return;
  }
  if (onListenStreams && !target.subscriptions().accept(notification)) return;
  const changed = LIST_CHANGED[method];
  if (changed) {
    target.cache?.invalidate(...STALE_LISTS[changed]);
    if (changed === 'promptsListChanged') target.listed.forgetPrompts();
    if (changed === 'toolsListChanged') target.listed.forgetTools();
    target.emit(changed);
    return;
  }
  if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') {
    target.cache?.invalidateUri(params.uri);
    target.emit('resourceUpdated', { uri: params.uri });
  }
}
