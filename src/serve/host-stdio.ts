import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { serialize } from '../jsonrpc/serialize.js';
import { Framer } from '../transport/stdio/framer.js';

/** The longest line the host may send: the library's own stdio default. */
const MAX_HOST_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * The gateway's stdio wire to its host, handed to the library's `serveStdio` as its transport:
 * conduit-mcp's own framer reads stdin (one JSON parse a line, the messages checked as JSON-RPC, a
 * size cap while a line arrives), and the answers written in one turn of the event loop leave in
 * one `writev`. `take` sees every message first and keeps those the gateway answers itself
 * (DirectCalls); the library gets the rest.
 */
export class HostStdioWire implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  /** Settles once the wire closed: `ended` when the host closed stdin, `broken` when it sent what cannot be read. */
  readonly closed: Promise<'ended' | 'broken'>;
  #settleClosed: (how: 'ended' | 'broken') => void = () => {};
  /** Sees each message from the host first; true: it is handled, the library never sees it. */
  take: (message: JSONRPCMessage) => boolean = () => false;
  readonly #stdin: NodeJS.ReadableStream & { pause(): unknown };
  readonly #stdout: NodeJS.WritableStream & { cork(): void; uncork(): void };
  readonly #framer: Framer;
  #corked = false;
  #closed = false;

  constructor(stdin = process.stdin, stdout = process.stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.closed = new Promise((resolve) => {
      this.#settleClosed = resolve;
    });
    this.#framer = new Framer({
      maxMessageBytes: MAX_HOST_MESSAGE_BYTES,
      maxJunkLines: Number.POSITIVE_INFINITY,
      onMessage: ({ message }) => {
        const typed = message as JSONRPCMessage;
        if (!this.take(typed)) this.onmessage?.(typed);
      },
      onJunk: (reason) =>
        this.onerror?.(new Error(`the host sent a line that is not MCP JSON-RPC: ${reason}`)),
      onFatal: ({ limit }) => {
        this.onerror?.(
          new Error(`the host sent a message over ${limit} bytes; the gateway closes the connection`),
        );
        void this.#close('broken');
      },
    });
  }

  readonly #onData = (chunk: Buffer | string) => {
    this.#framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  readonly #onEnd = () => {
    this.#framer.end();
    void this.close();
  };
  readonly #onError = (error: Error) => this.onerror?.(error);

  /** Starts reading the host's messages. */
  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('close', this.#onEnd);
    this.#stdin.on('error', this.#onError);
    this.#stdout.on('error', this.#onError);
  }

  /**
   * Writes one message; resolves when the pipe took it (or drained). Answers written in one turn
   * of the event loop leave together; a notification or request leaves at once, after the answers
   * before it, never in one write with what follows: the official 1.x client drops a progress
   * notification it reads in the same chunk as its request's result.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the host connection is closed'));
    const line = serialize(message as never);
    if ('method' in message) {
      this.#flush();
    } else if (!this.#corked) {
      this.#corked = true;
      this.#stdout.cork();
      process.nextTick(this.#flush);
    }
    if (this.#stdout.write(line)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        this.#stdout.off('drain', done);
        this.#stdout.off('error', done);
        if (error) reject(error);
        else resolve();
      };
      this.#stdout.once('drain', done);
      this.#stdout.once('error', done);
    });
  }

  readonly #flush = () => {
    if (!this.#corked) return;
    this.#corked = false;
    this.#stdout.uncork();
  };

  /** Stops reading; the library's `onclose` runs once, then `closed` settles. */
  close(): Promise<void> {
    return this.#close('ended');
  }

  async #close(how: 'ended' | 'broken'): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#framer.stop();
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdin.pause();
    this.onclose?.();
    this.#settleClosed(how);
  }
}
