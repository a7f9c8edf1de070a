import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { EventSourceMessage, EventSourceParser, ParserCallbacks } from 'eventsource-parser';

/** What an event stream said about resuming it: the last event id and the `retry:` delay. */
export interface StreamState {
  lastEventId?: string;
  retry?: number;
}

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void;
  /** The server's `retry:` field, ms. */
  onRetry(ms: number): void;
  /** An event (or a line of one) grew past the cap; the stream must be dropped. */
  onTooLarge(limit: number): void;
}

export type CreateParser = (callbacks: ParserCallbacks & { maxBufferSize?: number }) => EventSourceParser;

/**
 * Reads a `text/event-stream` body (WHATWG rules: CR, LF or CRLF line ends, comments ignored,
 * multi-line data joined) through eventsource-parser, bounded: an event, or a line with no end,
 * larger than `maxEventBytes` stops the stream instead of growing memory. The parser counts UTF-16
 * units while it buffers; a dispatched event is checked again in bytes, so the bound holds in bytes.
 */
export class SseReader {
  readonly #parser: EventSourceParser;
  readonly #decoder = new StringDecoder('utf8');
  readonly #maxEventBytes: number;
  readonly #handlers: SseHandlers;
  #failed = false;

  constructor(createParser: CreateParser, maxEventBytes: number, handlers: SseHandlers) {
    this.#maxEventBytes = maxEventBytes;
    this.#handlers = handlers;
    this.#parser = createParser({
      maxBufferSize: maxEventBytes,
      onEvent: (event) => {
        if (this.#failed) return;
        // Only a string that might be too long is measured in bytes.
        if (
          event.data.length * 3 > this.#maxEventBytes &&
          Buffer.byteLength(event.data) > this.#maxEventBytes
        ) {
          this.#fail();
          return;
        }
        handlers.onEvent(event);
      },
      onRetry: (ms) => {
        if (!this.#failed) handlers.onRetry(ms);
      },
      onError: (error) => {
        if ((error as { type?: string }).type === 'max-buffer-size-exceeded') this.#fail();
      },
    });
  }

  push(chunk: Buffer): void {
    if (this.#failed) return;
    this.#parser.feed(this.#decoder.write(chunk));
  }

  #fail(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#handlers.onTooLarge(this.#maxEventBytes);
  }
}

/**
 * Reads an event stream body to its end, keeping its last event id and `retry:` in `state`, and
 * handing up the data of each `message` event; resolves with how many events it carried.
 */
export function readEventStream(
  body: Readable,
  reader: { createParser: CreateParser; maxEventBytes: number; state: StreamState },
  handlers: { onMessage(data: string): void; onTooLarge(limit: number): void },
): Promise<number> {
  let events = 0;
  const { state } = reader;
  const sse = new SseReader(reader.createParser, reader.maxEventBytes, {
    onEvent: (event) => {
      events += 1;
      if (event.id !== undefined) state.lastEventId = event.id;
      if ((event.event ?? 'message') === 'message' && event.data !== '') handlers.onMessage(event.data);
    },
    onRetry: (ms) => {
      state.retry = ms;
    },
    onTooLarge: handlers.onTooLarge,
  });
  return new Promise<number>((resolve) => {
    body.on('data', (chunk: Buffer) => sse.push(chunk));
    body.once('end', () => resolve(events));
    body.once('error', () => resolve(events));
    body.once('close', () => resolve(events));
  });
}
