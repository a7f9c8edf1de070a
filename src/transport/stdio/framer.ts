import { type Classified, parseMessage } from '../../jsonrpc/classify.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const NO_BYTES = Buffer.alloc(0);

export type ValidMessage = Exclude<Classified, { kind: 'invalid' }>;

export interface FramerOptions {
  /** Longest line accepted, in bytes (the `\n` excluded). */
  readonly maxMessageBytes: number;
  /** Junk lines in a row tolerated; one more is fatal. */
  readonly maxJunkLines: number;
  onMessage(message: ValidMessage): void;
  /** A dropped line: why, its size, and its text (for debug logs only). */
  onJunk(reason: string, bytes: number, text: string): void;
  /** The stream cannot go on; nothing more is delivered after this. */
  onFatal(reason: { type: 'message_too_large' | 'junk_output'; limit: number }): void;
}

/**
 * Newline-delimited JSON-RPC, bytes to messages, in O(total bytes): each byte is scanned once,
 * a line split across chunks is joined once, and the size cap is enforced while a line is still
 * arriving, so a server that never writes a newline costs at most about `maxMessageBytes`.
 * Splitting at `\n` is safe for UTF-8 (0x0a never occurs inside a multi-byte character); each line
 * is decoded on its own and invalid bytes become U+FFFD rather than errors.
 */
export class Framer {
  readonly #options: FramerOptions;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #junkInARow = 0;
  #firstLine = true;
  #stopped = false;

  constructor(options: FramerOptions) {
    this.#options = options;
  }

  /** Bytes held for an unfinished line. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1 && !this.#stopped) {
      this.#completeLine(chunk, start, newline);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (this.#stopped) return;
    const rest = chunk.length - start;
    if (rest === 0) return;
    if (this.#heldBytes + rest > this.#options.maxMessageBytes) {
      this.#fatal('message_too_large', this.#options.maxMessageBytes);
      return;
    }
    this.#held.push(start === 0 ? chunk : chunk.subarray(start));
    this.#heldBytes += rest;
  }

  /** The stream ended: a last line without a newline is still read. */
  end(): void {
    if (!this.#stopped && this.#heldBytes > 0) this.#completeLine(NO_BYTES, 0, 0);
  }

  /** Stops for good and lets go of any held bytes. */
  stop(): void {
    this.#stopped = true;
    this.#held = [];
    this.#heldBytes = 0;
  }

  #completeLine(chunk: Buffer, start: number, end: number): void {
    if (this.#heldBytes === 0) {
      this.#line(chunk, start, end);
      return;
    }
    const total = this.#heldBytes + (end - start);
    if (total > this.#options.maxMessageBytes) {
      this.#fatal('message_too_large', this.#options.maxMessageBytes);
      return;
    }
    this.#held.push(chunk.subarray(start, end));
    const line = Buffer.concat(this.#held, total);
    this.#held = [];
    this.#heldBytes = 0;
    this.#line(line, 0, line.length);
  }

  #line(buffer: Buffer, start: number, end: number): void {
    if (end - start > this.#options.maxMessageBytes) {
      this.#fatal('message_too_large', this.#options.maxMessageBytes);
      return;
    }
    if (this.#firstLine) {
      this.#firstLine = false;
      if (
        end - start >= 3 &&
        buffer[start] === 0xef &&
        buffer[start + 1] === 0xbb &&
        buffer[start + 2] === 0xbf
      ) {
        start += 3;
      }
    }
    if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end -= 1;
    if (end === start) {
      this.#junk('blank line', 0, '');
      return;
    }
    const text = buffer.toString('utf8', start, end);
    const classified = parseMessage(text);
    if (classified.kind === 'invalid') {
      this.#junk(classified.reason, end - start, text);
      return;
    }
    this.#junkInARow = 0;
    this.#options.onMessage(classified);
  }

  #junk(reason: string, bytes: number, text: string): void {
    this.#options.onJunk(reason, bytes, text);
    if (this.#stopped) return; // stopped by the listener: no fatal error after that
    this.#junkInARow += 1;
    if (this.#junkInARow > this.#options.maxJunkLines) this.#fatal('junk_output', this.#options.maxJunkLines);
  }

  #fatal(type: 'message_too_large' | 'junk_output', limit: number): void {
    this.stop();
    this.#options.onFatal({ type, limit });
  }
}
