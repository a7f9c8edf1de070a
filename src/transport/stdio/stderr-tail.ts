import { redact } from '../transport.js';

/**
 * The last bytes a server wrote to stderr, for close reasons ("failed to start" with the reason).
 * It keeps `limit` bytes plus the length of the longest Secret, so that a Secret cut by the
 * window's start is still whole when it is redacted, and only then is the window cut to `limit`.
 */
export class StderrTail {
  readonly #limit: number;
  readonly #secrets: readonly string[];
  readonly #keep: number;
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(limit: number, secrets: readonly string[]) {
    this.#limit = limit;
    this.#secrets = secrets;
    this.#keep = limit + Math.max(0, ...secrets.map((secret) => Buffer.byteLength(secret)));
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    while (this.#chunks.length > 1 && this.#bytes - this.#chunks[0]!.length >= this.#keep) {
      this.#bytes -= this.#chunks.shift()!.length;
    }
  }

  /** The tail as text (Secrets redacted, at most `limit` bytes), or undefined when nothing came. */
  text(): string | undefined {
    if (this.#bytes === 0) return undefined;
    let kept = Buffer.concat(this.#chunks);
    if (kept.length > this.#keep) kept = kept.subarray(kept.length - this.#keep);
    let redacted = Buffer.from(redact(kept.toString('utf8'), this.#secrets));
    if (redacted.length > this.#limit) redacted = redacted.subarray(redacted.length - this.#limit);
    // A cut through a multi-byte character leaves replacement characters at the start.
    const text = redacted.toString('utf8').replace(/^\uFFFD+/, '');
    return text.length > 0 ? text : undefined;
  }
}
