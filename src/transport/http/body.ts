import type { Readable } from 'node:stream';
import { classify, isRequestId } from '../../jsonrpc/classify.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/messages.js';
import { redact } from '../transport.js';

/** How much of an error body is read to quote it; the rest is discarded unread. */
const ERROR_BODY_BYTES = 16 * 1024;
/** How long a quoted body excerpt may be, in characters. */
export const EXCERPT_CHARS = 200;

/** The body grew past its limit while it arrived. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the body is larger than ${limit} bytes`);
  }
}

function ignore(): void {}

/** Drops a body we will not read: undici reports a destroyed unread body as an error, which is expected here. */
export function discard(body: Readable): void {
  body.on('error', ignore);
  body.destroy();
}

/** Reads and drops a small body (a 202's, a redirect's) so its connection goes back to the pool. */
export function drain(body: Readable): void {
  body.on('error', ignore);
  const dump = (body as Readable & { dump?: (options: { limit: number }) => Promise<void> }).dump;
  if (typeof dump === 'function') dump.call(body, { limit: 64 * 1024 }).catch(ignore);
  else discard(body);
}

/** The media type of a Content-Type value, lowercased, without parameters. */
export function mediaType(value: string | string[] | undefined): string {
  return (headerString(value) ?? '').split(';')[0]!.trim().toLowerCase();
}

export function headerString(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads a whole body, but never more than `limit` bytes: past it, the body is destroyed and it
 * fails with BodyTooLargeError. A Content-Length over the limit fails before reading. A body that
 * is all here already is returned as it is, not as a promise (and a failure then throws).
 */
export function readBounded(
  body: Readable,
  limit: number,
  contentLength?: string,
  idleMs?: number,
): Buffer | Promise<Buffer> {
  const expected = contentLength === undefined ? Number.NaN : Number(contentLength);
  if (expected > limit) {
    discard(body);
    throw new BodyTooLargeError(limit);
  }
  // A small answer has usually arrived whole with its headers: what is buffered is taken now, and
  // a body complete by its Content-Length is the answer at once (no timer, no wait for 'end').
  const chunks: Buffer[] = [];
  let size = 0;
  for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) {
    size += chunk.length;
    if (size > limit) {
      discard(body);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(chunk);
  }
  if (size === expected) {
    body.resume(); // its 'end' and 'close' come even if the end of the message is still to be parsed
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  }
  // Listeners rather than an async iterator: no promise per chunk on the path of every answer.
  return new Promise<Buffer>((resolve, reject) => {
    const idle =
      idleMs === undefined
        ? undefined
        : setTimeout(
            () => body.destroy(Object.assign(new Error('the body stalled'), { code: 'CONDUIT_BODY_IDLE' })),
            idleMs,
          );
    const finish = (error?: Error) => {
      clearTimeout(idle);
      body.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      idle?.refresh();
      size += chunk.length;
      if (size > limit) {
        finish(new BodyTooLargeError(limit));
        discard(body);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onClose = () =>
      finish(Object.assign(new Error('the body closed before its end'), { code: 'UND_ERR_ABORTED' }));
    body.on('data', onData).once('end', onEnd).once('error', finish).once('close', onClose);
  });
}

/** Reads up to ERROR_BODY_BYTES of a body to quote it, then drops the rest (no error for a long body). */
export async function readPrefix(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= ERROR_BODY_BYTES) break;
    }
  } catch {
    // A body that fails half-way is quoted as far as it came.
  } finally {
    discard(body);
  }
  return Buffer.concat(chunks, size).subarray(0, ERROR_BODY_BYTES);
}

/**
 * A short, safe quote of a body for an error message: HTML reduced to its text, control
 * characters and runs of whitespace collapsed, every secret value replaced, cut to
 * {@link EXCERPT_CHARS} characters.
 */
export function excerpt(body: Buffer | string, type: string, secrets: readonly string[]): string {
  let text = typeof body === 'string' ? body : body.toString('utf8');
  if (type === 'text/html' || /^\s*</.test(text)) {
    text = text
      .replace(/<(script|style)[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  text = redact(text, secrets);
  text = text.replace(/[\x00-\x1f\x7f\s]+/g, ' ').trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 3)}...` : text;
}

/**
 * The JSON-RPC messages of a JSON body: one message or (2025-03-26) a batch; with `success`
 * false, only errors. An error without an id is the answer to `answering`. None if it is not JSON.
 */
export function jsonRpcMessages(
  body: Buffer | string,
  answering: RequestId | undefined,
  success: boolean,
): JsonRpcMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString());
  } catch {
    return [];
  }
  const messages: JsonRpcMessage[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (typeof item !== 'object' || item === null) continue;
    const message = item as Record<string, unknown>;
    if (!success && !('error' in message)) continue;
    if ('error' in message && !isRequestId(message.id) && answering !== undefined) message.id = answering;
    const classified = classify(message);
    if (classified.kind !== 'invalid') messages.push(classified.message);
  }
  return messages;
}
