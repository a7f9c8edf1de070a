import { ConnectionClosedError, UsageError } from '../errors.js';
import type { JsonRpcMessage } from '../jsonrpc/messages.js';
import { serialize } from '../jsonrpc/serialize.js';
import { SafeEmitter } from '../user-code.js';
import type { CloseReason, Transport, TransportEvents } from './transport.js';

/**
 * One end of an in-memory pair: a Transport whose messages go to the other end, as JSON text (so
 * what would not survive a wire does not survive here), one macrotask later, in order. For tests
 * and in-process servers:
 *
 * ```ts
 * const client = new Client({
 *   name: 'in-process',
 *   transport: {
 *     type: 'custom',
 *     create: () => {
 *       const [clientEnd, serverEnd] = InMemoryTransport.pair();
 *       serveOn(serverEnd); // your server: listens to 'message', answers with send()
 *       return clientEnd;
 *     },
 *   },
 * });
 * ```
 *
 * Each end must be started before it sends. Closing one end closes both: the closer's reason is
 * `closed`, the other end's `ended`.
 */
export class InMemoryTransport extends SafeEmitter<TransportEvents> implements Transport {
  /** Always `'memory'`. */
  readonly kind = 'memory';
  #other: InMemoryTransport | undefined;
  #started = false;
  #closeReason: CloseReason | undefined;

  private constructor() {
    super();
  }

  /** Two connected ends: what one sends, the other emits as `'message'`. */
  static pair(): [client: InMemoryTransport, server: InMemoryTransport] {
    const client = new InMemoryTransport();
    const server = new InMemoryTransport();
    client.#other = server;
    server.#other = client;
    return [client, server];
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  async start(): Promise<void> {
    if (this.#started) throw new UsageError('an InMemoryTransport can be started only once');
    this.#started = true;
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason);
  }

  send(message: JsonRpcMessage): void {
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason);
    if (!this.#started) throw new UsageError('InMemoryTransport.send() needs start() first');
    const text = serialize(message);
    const other = this.#other!;
    setImmediate(() => {
      if (this.#closeReason === undefined && other.#closeReason === undefined)
        other.emit('message', JSON.parse(text) as JsonRpcMessage);
    });
  }

  async close(): Promise<void> {
    this.#end({ type: 'closed' });
    this.#other!.#end({ type: 'ended' });
  }

  #end(reason: CloseReason): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    this.emit('close', reason);
  }
}
