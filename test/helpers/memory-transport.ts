// A paired in-memory transport for unit tests of the layers above the transport (Connection,
// discovery, the Client's cache, pagination and subscriptions): no process, no timing of its own.
// Every message crosses as JSON text, as on a wire, one macrotask later, in order. Real-process
// tests (test/transport, test/client/*-process) still cover every transport's own behaviour.
import { EventEmitter } from 'node:events';
import type { CloseReason } from '../../src/close-reason/close-reason.js';
import { ConnectionClosedError, UsageError } from '../../src/errors.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { serialize } from '../../src/jsonrpc/serialize.js';
import type { Transport, TransportEvents } from '../../src/transport/transport.js';

interface PeerEvents {
  message: [message: JsonRpcMessage];
  close: [reason: CloseReason];
}

/** The server's end of a pair: what the client sent arrives as `'message'`; `send` answers. */
export class MemoryPeer extends EventEmitter<PeerEvents> {
  /** Every message the client sent, in order. */
  readonly received: JsonRpcMessage[] = [];
  readonly #client: MemoryTransport;

  constructor(client: MemoryTransport) {
    super();
    this.#client = client;
  }

  get closed(): boolean {
    return this.#client.closeReason !== undefined;
  }

  send(message: JsonRpcMessage): void {
    this.#client.deliver(JSON.stringify(message));
  }

  /** Ends the pair from the server's side, e.g. `{ type: 'exit_status', status: 1, signal: null }`. */
  close(reason: CloseReason): void {
    this.#client.closeWith(reason);
  }

  /** Internal: a message from the client. */
  accept(text: string): void {
    const message = JSON.parse(text) as JsonRpcMessage;
    this.received.push(message);
    this.emit('message', message);
  }
}

/** The client's end: a Transport (`kind: 'memory'`). */
export class MemoryTransport extends EventEmitter<TransportEvents> implements Transport {
  readonly kind = 'memory';
  readonly peer: MemoryPeer = new MemoryPeer(this);
  #started = false;
  #closeReason: CloseReason | undefined;

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  async start(): Promise<void> {
    if (this.#started) throw new UsageError('start() can be called only once per transport');
    this.#started = true;
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason);
  }

  send(message: JsonRpcMessage): void {
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason);
    if (!this.#started) throw new UsageError('send() needs a started transport: await start() first');
    // The line a real transport writes, newline included.
    const text = serialize(message);
    setImmediate(() => {
      if (!this.#closeReason) this.peer.accept(text);
    });
  }

  async close(): Promise<void> {
    this.closeWith({ type: 'closed' });
  }

  /** Internal: a message from the peer, delivered one macrotask later unless closed by then. */
  deliver(text: string): void {
    setImmediate(() => {
      if (!this.#closeReason) this.emit('message', JSON.parse(text) as JsonRpcMessage);
    });
  }

  /** Internal: closes once with this reason (later calls do nothing). */
  closeWith(reason: CloseReason): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    this.peer.emit('close', reason);
    this.emit('close', reason);
  }
}

/** A custom transport spec for ClientOptions.transport: each (re)start makes a new pair and hands its peer to `serve`. */
export function memorySpec(serve: (peer: MemoryPeer) => void): never {
  return {
    type: 'custom',
    create() {
      const transport = new MemoryTransport();
      serve(transport.peer);
      return transport;
    },
  } as never;
}
