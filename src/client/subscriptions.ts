import { debug } from '../diagnostics.js';
import { AbortError, CapabilityError, ConnectionClosedError } from '../errors.js';
import type { JsonObject, JsonRpcNotification, RequestId } from '../jsonrpc/messages.js';
import { META_SUBSCRIPTION_ID } from '../protocol/meta.js';
import { logCancellation } from './connection.js';
import type { Session } from './eras/session.js';
import type { WarningSink } from './warnings.js';

/** What a `subscriptions/listen` asks for. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

export type ListChangedEvent = 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged';

/** The filter for what is wanted; an empty object when nothing is. */
/** What an absent set reads as. */
const NONE: ReadonlySet<never> = new Set();

export function buildFilter(
  lists: Iterable<ListChangedEvent>,
  uris: ReadonlySet<string>,
): SubscriptionFilter {
  const filter: SubscriptionFilter = {};
  for (const event of lists) filter[event] = true;
  if (uris.size > 0) filter.resourceSubscriptions = [...uris].sort();
  return filter;
}

export function sameFilter(a: SubscriptionFilter | undefined, b: SubscriptionFilter): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b);
}

export function isEmptyFilter(filter: SubscriptionFilter): boolean {
  return Object.keys(filter).length === 0;
}

/** What `requested` asked for that `granted` (an acknowledgement's filter) leaves out. */
export function missingFromGrant(
  requested: SubscriptionFilter,
  granted: SubscriptionFilter,
): SubscriptionFilter {
  const missing: SubscriptionFilter = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (requested[key] === true && granted[key] !== true) missing[key] = true;
  }
  const grantedUris = new Set(
    Array.isArray(granted.resourceSubscriptions) ? granted.resourceSubscriptions : [],
  );
  const uris = (requested.resourceSubscriptions ?? []).filter((uri) => !grantedUris.has(uri));
  if (uris.length > 0) missing.resourceSubscriptions = uris;
  return missing;
}

interface Stream {
  id: string;
  filter: SubscriptionFilter;
  controller: AbortController;
  acknowledged: Promise<void>;
  acknowledge: () => void;
  fail: (error: Error) => void;
  session: Session;
  /** What the acknowledgement left out of `filter`, once acknowledged. */
  refused: SubscriptionFilter | undefined;
  /** The server ended it (notifications/cancelled) while it was being replaced: nothing to report. */
  endedWhileReplaced: boolean;
}

/**
 * Streams being replaced (opened before the old one is cancelled) at once; a filter that changes
 * faster than the server acknowledges cancels the oldest.
 */
export const MAX_DRAINING_STREAMS = 4;

/**
 * Change notifications in both eras. Legacy: list_changed arrives unsolicited, and resources are
 * watched with `resources/subscribe`. Modern: one `subscriptions/listen` stream (a string id,
 * exempt from timeouts) carries what is wanted; a new filter opens a new stream, then cancels the
 * old one; notifications are routed by their subscription id; the stream is re-opened after a restart.
 */
export class Subscriptions {
  readonly #name: string;
  // Made on first use: most clients never subscribe or listen. The wanted lists (at most three, in
  // the order first wanted) are an array: a Set's hash table is about 100 bytes more per client.
  #lists: ListChangedEvent[] | undefined;
  #uris: Set<string> | undefined;
  #session: Session | undefined;
  #current: Stream | undefined;
  #draining: Set<Stream> | undefined;
  #sequence = 0;
  #ackTimeout: number;
  readonly #warn: WarningSink;

  constructor(name: string, ackTimeout: number, warn: WarningSink) {
    this.#name = name;
    this.#ackTimeout = ackTimeout;
    this.#warn = warn;
  }

  /** A new session (first connect or restart): restore what was wanted on it. */
  attach(session: Session): void {
    this.#session = session;
    this.#current = undefined;
    this.#draining = undefined;
    if (session.changeNotifications === 'unsolicited') {
      for (const uri of this.#uris ?? NONE) {
        session.request('resources/subscribe', { uri }).catch((error: Error) => {
          if (error instanceof ConnectionClosedError) return;
          this.#warn({
            type: 'resubscribe_failed',
            message: `${this.#name}: restoring resources/subscribe ${uri} after a restart failed: ${error.message}`,
            error,
          });
        });
      }
      return;
    }
    // Nothing wanted (no list listener, no resource subscribed): no stream to open, nothing to sync.
    if (!this.#lists?.length && !this.#uris?.size) return;
    // A failure was reported as a warning where the stream failed.
    this.#sync().catch(() => {});
  }

  /** A listener for a list_changed event was added or the last one removed. */
  setListWanted(event: ListChangedEvent, wanted: boolean): void {
    const at = this.#lists?.indexOf(event) ?? -1;
    if (wanted === (at !== -1)) return;
    // concat() makes an array of the exact length; one pushed to (or spread into) keeps room for 17
    // to 20 (about 140 bytes more per Client of a pool, which listens to the three list events).
    if (wanted) this.#lists = this.#lists ? this.#lists.concat(event) : [event];
    else this.#lists!.splice(at, 1);
    if (this.#session?.changeNotifications === 'listen') {
      this.#sync().catch(() => {});
    }
  }

  async subscribe(
    uri: string,
    request: (method: string, params: JsonObject) => Promise<unknown>,
  ): Promise<void> {
    if (this.#session?.changeNotifications === 'listen') {
      this.#uris ??= new Set();
      this.#uris.add(uri);
      await this.#sync();
      const refused = this.#current?.refused?.resourceSubscriptions ?? [];
      if (refused.includes(uri)) {
        // Not kept: the next filter would only ask again for what the server does not honour.
        this.#uris?.delete(uri);
        throw new CapabilityError(
          'resources/subscribe',
          `the server acknowledged the subscription without ${uri}: it does not notify updates of that resource; read it again when you need it fresh`,
          { server: this.#name },
        );
      }
      return;
    }
    await request('resources/subscribe', { uri });
    this.#uris ??= new Set();
    this.#uris.add(uri);
  }

  async unsubscribe(
    uri: string,
    request: (method: string, params: JsonObject) => Promise<unknown>,
  ): Promise<void> {
    const had = this.#uris?.delete(uri) ?? false;
    if (this.#session?.changeNotifications === 'listen') {
      await this.#sync();
      return;
    }
    if (had) await request('resources/unsubscribe', { uri });
  }

  /**
   * Takes a modern notification that belongs to one of our listen streams; false for anything
   * else. The acknowledgement settles the stream's opening.
   */
  accept(notification: JsonRpcNotification): boolean {
    const id = (notification.params?._meta as Record<string, unknown> | undefined)?.[META_SUBSCRIPTION_ID];
    if (id === undefined) return false;
    const stream = this.#find(id);
    if (!stream) {
      debug('%s: dropped a notification for unknown subscription %s', this.#name, id);
      return false;
    }
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      const raw = notification.params?.notifications;
      const granted = (typeof raw === 'object' && raw !== null ? raw : {}) as SubscriptionFilter;
      const refused = missingFromGrant(stream.filter, granted);
      stream.refused = refused;
      if (!isEmptyFilter(refused) && stream === this.#current) {
        this.#warn({
          type: 'subscription_narrowed',
          message: `${this.#name}: the server acknowledged ${stream.id} without ${JSON.stringify(refused)}; those changes are not notified (re-fetch, or rely on ttlMs freshness)`,
          error: new Error(`not granted: ${JSON.stringify(refused)}`),
          requested: stream.filter,
          granted,
        });
      }
      stream.acknowledge();
      return false;
    }
    return true;
  }

  /**
   * The server ended a listen stream with `notifications/cancelled`: the current one or one being
   * replaced. Either way it is no longer running, so it is abandoned locally and never cancelled
   * again on the wire.
   */
  serverCancelled(requestId: RequestId, reason?: string): void {
    const stream = this.#find(requestId);
    logCancellation(
      this.#name,
      'received',
      requestId,
      stream ? reason : `${reason ?? 'no reason'} (ignored: no such subscription)`,
    );
    if (!stream) return;
    // One being replaced ends quietly: its replacement carries the notifications now.
    stream.endedWhileReplaced = this.#current !== stream;
    if (this.#current === stream) this.#current = undefined;
    this.#draining?.delete(stream);
    stream.session.abandon(stream.id, new Error('the server ended the subscription'));
  }

  #find(id: unknown): Stream | undefined {
    if (this.#current?.id === id) return this.#current;
    for (const stream of this.#draining ?? NONE) if (stream.id === id) return stream;
    return undefined;
  }

  dispose(): void {
    this.#current?.controller.abort(new Error('the client is closing'));
    this.#current = undefined;
    this.#session = undefined;
  }

  /** Opens a stream with the wanted filter (if it differs), then cancels the old one. */
  async #sync(): Promise<void> {
    const session = this.#session;
    if (session?.changeNotifications !== 'listen') return;
    const filter = buildFilter(this.#lists ?? [], this.#uris ?? NONE);
    if (sameFilter(this.#current?.filter, filter)) {
      await this.#current?.acknowledged;
      return;
    }
    const previous = this.#current;
    if (previous) {
      this.#draining ??= new Set();
      this.#draining.add(previous);
    }
    if (this.#draining && this.#draining.size > MAX_DRAINING_STREAMS) {
      const oldest = this.#draining.values().next().value!;
      this.#draining.delete(oldest);
      oldest.controller.abort(new Error('too many subscription streams waiting to be replaced'));
    }
    this.#current = isEmptyFilter(filter) ? undefined : this.#open(session, filter);
    try {
      await this.#current?.acknowledged;
    } finally {
      if (previous) {
        this.#draining?.delete(previous);
        previous.controller.abort(new Error('replaced by a new subscription'));
      }
    }
  }

  #open(session: Session, filter: SubscriptionFilter): Stream {
    const id = `listen-${++this.#sequence}`;
    const controller = new AbortController();
    let acknowledge!: () => void;
    let fail!: (error: Error) => void;
    const acknowledged = new Promise<void>((resolve, reject) => {
      acknowledge = resolve;
      fail = reject;
    });
    acknowledged.catch(() => {});
    const stream: Stream = {
      id,
      filter,
      controller,
      acknowledged,
      acknowledge,
      fail,
      session,
      refused: undefined,
      endedWhileReplaced: false,
    };
    const timer = setTimeout(() => {
      const error = new Error(`the server did not acknowledge ${id} within ${this.#ackTimeout} ms`);
      fail(error);
      // Not kept: the next subscription opens a new stream.
      if (this.#current === stream) this.#current = undefined;
      this.#listenFailed(id, error);
      controller.abort(error);
    }, this.#ackTimeout);
    void acknowledged.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    session
      .request(
        'subscriptions/listen',
        { notifications: filter as JsonObject },
        { id, signal: controller.signal, timeout: Number.POSITIVE_INFINITY },
      )
      .then(
        () => {
          // The server closed the stream gracefully.
          const error = new Error(`the server ended ${id} with a result`);
          if (this.#current === stream) {
            this.#current = undefined;
            this.#listenFailed(id, error);
          }
          fail(error);
        },
        (error: Error) => {
          if (this.#current === stream) this.#current = undefined;
          fail(error);
          if (stream.endedWhileReplaced) return;
          if (!(error instanceof AbortError || error instanceof ConnectionClosedError)) {
            this.#listenFailed(id, error);
          }
        },
      );
    return stream;
  }

  #listenFailed(id: string, error: Error): void {
    this.#warn({
      type: 'listen_failed',
      message: `${this.#name}: subscriptions/listen ${id} failed (${error.message}); change notifications stop until the next subscription opens a new stream`,
      error,
    });
  }
}
