import { isTransportCloseReasonType } from '../../close-reason/close-reason.js';
import { debug } from '../../diagnostics.js';
import { ConnectionClosedError, UsageError } from '../../errors.js';
import { classify, isRequestId } from '../../jsonrpc/classify.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { SafeEmitter } from '../../user-code.js';
import type { CloseReason, Transport, TransportEvents } from '../transport.js';

/** What the library accepts of a custom transport's close reason; anything else becomes `ended`. */
function checkedReason(reason: unknown): CloseReason {
  const type = (reason as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && isTransportCloseReasonType(type)) return reason as CloseReason;
  if (reason instanceof Error) return { type: 'ended', error: reason };
  return { type: 'ended' };
}

/**
 * A user's transport as the library uses it: every message it emits is checked to be JSON-RPC
 * (others are dropped, with a debug line), `close` is passed on once and nothing after it, and
 * a transport that closes without saying so through `close()` still reads as closed.
 */
export class CheckedTransport extends SafeEmitter<TransportEvents> implements Transport {
  readonly #inner: Transport;
  readonly #name: string;
  #closeReason: CloseReason | undefined;

  constructor(inner: Transport, name: string) {
    super();
    this.#inner = inner;
    this.#name = name;
    inner.on('message', (message: unknown) => this.#onMessage(message));
    inner.on('close', (reason: unknown) => this.#onClose(checkedReason(reason)));
    inner.on('requestFailed', (id: unknown, error: unknown) => {
      if (this.#closeReason || !isRequestId(id)) return;
      this.emit('requestFailed', id, error instanceof Error ? error : new Error(String(error)));
    });
  }

  get kind(): string {
    return this.#inner.kind;
  }

  get pid(): number | undefined {
    return this.#inner.pid;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  async start(): Promise<void> {
    try {
      await this.#inner.start();
    } catch (error) {
      this.#onClose({ type: 'ended', error: error instanceof Error ? error : new Error(String(error)) });
      throw error;
    }
  }

  send(message: JsonRpcMessage): void {
    if (this.#closeReason) throw new ConnectionClosedError(this.#closeReason, { server: this.#name });
    this.#inner.send(message);
  }

  async close(): Promise<void> {
    try {
      await this.#inner.close();
    } finally {
      this.#onClose({ type: 'closed' });
    }
  }

  #onMessage(message: unknown): void {
    if (this.#closeReason) return;
    const classified = classify(message);
    if (classified.kind === 'invalid') {
      debug('%s: dropped a message of the custom transport: %s', this.#name, classified.reason);
      return;
    }
    this.emit('message', classified.message);
  }

  #onClose(reason: CloseReason): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    this.emit('close', reason);
  }
}

/** Throws a UsageError unless `value` has what the Transport interface needs. */
export function checkTransportShape(value: unknown, name: string): asserts value is Transport {
  const methods = ['start', 'send', 'close', 'on'] as const;
  const missing =
    typeof value !== 'object' || value === null
      ? ['an object']
      : methods.filter((method) => typeof (value as Record<string, unknown>)[method] !== 'function');
  if (missing.length > 0) {
    throw new UsageError(
      `transport.create() must return a Transport (start, send, close and EventEmitter's on), and what it returned lacks ${missing.join(', ')}`,
      { server: name },
    );
  }
}
