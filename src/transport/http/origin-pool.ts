import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');
type UndiciClient = InstanceType<Undici['Client']>;
type Connector = import('undici').buildConnector.connector;

/** What the Requester asks of its dispatcher: this pool, or the proxy agent. */
export interface RequestDispatcher {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  destroy(): Promise<void>;
}

/**
 * The keep-alive connections to one origin, kept as undici's Pool without a connection limit keeps
 * them: a request goes to the first connection that takes more (in the order they were made), else
 * to a new one; a connection that refuses more (its dispatch() says false: its one request is
 * running) is skipped until its 'drain'; one that failed to connect is dropped. Each is an undici
 * Client on the process's shared socket connector.
 *
 * A transport makes its pool when it starts, so a connect makes one. undici's Pool costs about 50 µs
 * more to make, cold, in a connect of about 1 ms: its options deep-cloned, a second Client made as
 * soon as the first is busy (a spare nothing may use), a queue and listeners for limits we never set.
 */
export function originPool(
  undici: Undici,
  origin: URL,
  connect: Connector,
): RequestDispatcher & { readonly connections: number } {
  OriginPool ??= defineOriginPool(undici);
  return new OriginPool(origin, connect);
}

let OriginPool: ReturnType<typeof defineOriginPool> | undefined;

/** The class, made once undici is loaded (it extends undici's Dispatcher, for its request()). */
function defineOriginPool(undici: Undici) {
  return class OriginPool extends undici.Dispatcher implements RequestDispatcher {
    readonly #origin: URL;
    readonly #connect: Connector;
    readonly #clients: UndiciClient[] = [];
    /** Connections that refused more, until their 'drain'; made on the first (a connect sends one request). */
    #busy: Set<UndiciClient> | undefined;
    #destroyed = false;

    constructor(origin: URL, connect: Connector) {
      super();
      this.#origin = origin;
      this.#connect = connect;
    }

    /** How many connections it keeps (open, or to be opened on their next request). */
    get connections(): number {
      return this.#clients.length;
    }

    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      // request() turns the throw into its rejection, as for a destroyed Pool.
      if (this.#destroyed) throw new undici.errors.ClientDestroyedError();
      const client = this.#free() ?? this.#add();
      if (!client.dispatch(options, handler)) {
        this.#busy ??= new Set();
        this.#busy.add(client);
      }
      // Never queued here: without a limit there is always a connection to take the next one.
      return true;
    }

    #free(): UndiciClient | undefined {
      const busy = this.#busy;
      if (busy === undefined || busy.size === 0) return this.#clients[0];
      for (const client of this.#clients) if (!busy.has(client)) return client;
      return undefined;
    }

    #add(): UndiciClient {
      const client = new undici.Client(this.#origin, { connect: this.#connect });
      client.on('drain', () => this.#busy?.delete(client));
      // As undici's Pool: a connection that could not connect is not used again (nor closed: it has no socket).
      client.on('connectionError', () => {
        this.#busy?.delete(client);
        const index = this.#clients.indexOf(client);
        if (index !== -1) this.#clients.splice(index, 1);
      });
      this.#clients.push(client);
      return client;
    }

    override close(): Promise<void> {
      this.#destroyed = true;
      return settleAll(this.#clients.splice(0).map((client) => client.close()));
    }

    /** Every connection destroyed: idle sockets closed at once, running requests failed. */
    override destroy(): Promise<void> {
      this.#destroyed = true;
      this.#busy = undefined;
      return settleAll(this.#clients.splice(0).map((client) => client.destroy()));
    }
  };
}

function settleAll(closing: Promise<void>[]): Promise<void> {
  if (closing.length === 0) return Promise.resolve();
  if (closing.length === 1) return closing[0]!;
  return Promise.all(closing).then(() => undefined);
}
