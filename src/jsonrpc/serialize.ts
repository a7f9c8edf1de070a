import type { JsonRpcMessage } from './messages.js';

// Line breaks JSON.stringify leaves raw: U+2028 and U+2029 end a line for JavaScript, and they and
// U+0085 (NEL) do for Python's str.splitlines, so a reader splitting on them would cut the message.
const UNESCAPED_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
const escapeLineBreak = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * One message as exactly one line: compact JSON (which escapes every line break inside strings,
 * including U+0085, U+2028 and U+2029) and a final `\n`. Throws a TypeError that says why when the
 * message cannot be serialised.
 *
 * @throws `TypeError` when the message cannot be serialized as JSON, or is not a JSON object.
 */
export function serialize(message: JsonRpcMessage): string {
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
  return `${json.replace(UNESCAPED_LINE_BREAKS, escapeLineBreak)}\n`;
}
