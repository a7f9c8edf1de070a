import type { JsonRpcMessage } from './messages.js';

/**
 * One message as exactly one line: compact JSON (which escapes every newline inside strings)
 * and a final `\n`. Throws a TypeError that says why when the message cannot be serialised.
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
  return `${text}\n`;
}
