import { Buffer } from 'node:buffer';
import type { JsonRpcMessage } from './messages.js';

// Line breaks JSON.stringify leaves raw: U+2028 and U+2029 end a line for JavaScript, and they and
// U+0085 (NEL) do for Python's str.splitlines, so a reader splitting on them would cut the message.
const UNESCAPED_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
const escapeLineBreak = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One message as one line, and that line's length in UTF-8 bytes (the `\n` included). */
export interface SerializedLine {
  readonly text: string;
  readonly bytes: number;
}

/**
 * One message as exactly one line: compact JSON (which escapes every line break inside strings,
 * including U+0085, U+2028 and U+2029) and a final `\n`. Throws a TypeError that says why when the
 * message cannot be serialised.
 */
export function serialize(message: JsonRpcMessage): string {
  return serializeLine(message).text;
}

/** serialize(), with the line's length in UTF-8 bytes (what a write queue's cap counts). */
export function serializeLine(message: JsonRpcMessage): SerializedLine {
  let json: string | undefined;
  try {
    json = JSON.stringify(message);
  } catch (error) {
    throw new TypeError(`the message cannot be serialised as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof json !== 'string' || json[0] !== '{') {
    throw new TypeError('a JSON-RPC message must serialise to a JSON object');
  }
  let bytes = Buffer.byteLength(json);
  // The three raw line breaks are not ASCII: a text of as many bytes as characters has none.
  if (bytes !== json.length) {
    const escaped = json.replace(UNESCAPED_LINE_BREAKS, escapeLineBreak);
    if (escaped !== json) {
      json = escaped;
      bytes = Buffer.byteLength(json);
    }
  }
  return { text: `${json}\n`, bytes: bytes + 1 };
}
