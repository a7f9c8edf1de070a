import type { JsonRpcMessage } from './messages.js';

// Line breaks JSON.stringify leaves raw: U+2028 and U+2029 end a line for JavaScript, and they and
// U+0085 (NEL) do for Python's str.splitlines, so a reader splitting on them would cut the message.
const UNESCAPED_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
/** The same test without the global flag (no lastIndex state): most messages have none of them. */
const HAS_UNESCAPED_LINE_BREAK = /[\u0085\u2028\u2029]/;
const escapeLineBreak = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * One message as exactly one line: compact JSON (which escapes every line break inside strings,
 * including U+0085, U+2028 and U+2029) and a final `\n`. Throws a TypeError that says why when the
 * message cannot be serialised.
 */
export function serialize(message: JsonRpcMessage): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    throw new TypeError(`the message cannot be serialised as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof text !== 'string' || text[0] !== '{') {
    throw new TypeError('a JSON-RPC message must serialise to a JSON object');
  }
  if (HAS_UNESCAPED_LINE_BREAK.test(text)) text = text.replace(UNESCAPED_LINE_BREAKS, escapeLineBreak);
  return `${text}\n`;
}
