import { Buffer } from 'node:buffer';
import type { Writable } from 'node:stream';

/**
 * Messages to bytes without ever waiting: `write` hands the text over and returns. Everything
 * written in one turn of the event loop goes out in one `stream.write` once its poll phase is over
 * (setImmediate), except the first message after input arrived (`inputArrived()`), which goes out
 * at once when nothing waits before it, so a caller that sends its next request as each answer
 * comes is not held. Bytes not
 * yet taken by the OS are counted (ours plus the stream's buffer); above `maxBytes` the write is
 * refused so the owner can close: a server that stops reading costs at most that much memory.
 */
export class WriteQueue {
  readonly #stream: Writable;
  readonly #maxBytes: number;
  /** The messages of this turn, joined. */
  #batch = '';
  #batchBytes = 0;
  #closed = false;
  /** Input arrived since the last direct write: the next message may go out at once. */
  #direct = false;
  readonly #flush = () => {
    const text = this.#batch;
    const bytes = this.#batchBytes;
    this.#batch = '';
    this.#batchBytes = 0;
    if (this.#closed || bytes === 0) return;
    this.#hand(text, bytes);
  };

  constructor(stream: Writable, maxBytes: number) {
    this.#stream = stream;
    this.#maxBytes = maxBytes;
  }

  /** Bytes accepted but not yet taken by the OS. */
  get pendingBytes(): number {
    return this.#batchBytes + this.#stream.writableLength;
  }

  /** Queues one serialised message. Returns false, writing nothing, if it would pass the byte cap. */
  write(text: string): boolean {
    if (this.#closed) return false;
    const bytes = Buffer.byteLength(text);
    if (this.pendingBytes + bytes > this.#maxBytes) return false;
    if (this.#direct && this.#batchBytes === 0 && this.#stream.writableLength === 0) {
      this.#direct = false;
      this.#hand(text, bytes);
      return true;
    }
    if (this.#batchBytes === 0) {
      this.#batch = text;
      // The first message of the turn schedules the flush after the poll phase, so that the
      // messages of every callback of one poll leave in one write (a gateway's HTTP requests are
      // each their own callback). Bench row "20,000 calls, 256 in flight": 1.41x raw against 1.22x
      // with a flush on the next tick.
      if (bytes > 0) setImmediate(this.#flush);
    } else {
      this.#batch += text;
    }
    this.#batchBytes += bytes;
    return true;
  }

  /**
   * Gives `text` (`bytes` long in UTF-8) to the stream. A pipe counts a string in its
   * writableLength by UTF-16 code units, which would let three times the cap of CJK text through:
   * anything but ASCII (as many bytes as code units) goes as bytes.
   */
  #hand(text: string, bytes: number): void {
    this.#stream.write(bytes === text.length ? text : Buffer.from(text, 'utf8'));
  }

  /**
   * The peer wrote to us: the next message written, if nothing waits before it, goes out at once.
   * Bench rows "5,000 sequential tools/call echo" (both eras): ours/raw 2% to 5% higher with it.
   */
  inputArrived(): void {
    this.#direct = true;
  }

  /** Writes what is batched now rather than after the poll phase (before stdin is ended). */
  flushNow(): void {
    this.#flush();
  }

  /** Drops whatever was not written yet; later writes are refused. */
  close(): void {
    this.#closed = true;
    this.#batch = '';
    this.#batchBytes = 0;
  }
}
