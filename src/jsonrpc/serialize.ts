import type { JsonObject, JsonRpcMessage } from './messages.js';

// Line breaks JSON.stringify leaves raw: U+2028 and U+2029 end a line for JavaScript, and they and
// U+0085 (NEL) do for Python's str.splitlines, so a reader splitting on them would cut the message.
const UNESCAPED_LINE_BREAKS = /[\u0085\u2028\u2029]/g;
/** The same test without the global flag (no lastIndex state): most messages have none of them. */
const HAS_UNESCAPED_LINE_BREAK = /[\u0085\u2028\u2029]/;
const escapeLineBreak = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A constant `_meta` (the modern era's version, capabilities and client info) with its JSON made
 * once, for serialize() to add to the params of every request that carries it.
 */
export interface PreparedMeta {
  readonly value: Readonly<JsonObject>;
  /** `value` as JSON, line breaks escaped. */
  readonly json: string;
}

export function prepareMeta(value: JsonObject): PreparedMeta {
  return { value: Object.freeze({ ...value }), json: escapeLineBreaks(JSON.stringify(value)) };
}

function escapeLineBreaks(text: string): string {
  return HAS_UNESCAPED_LINE_BREAK.test(text) ? text.replace(UNESCAPED_LINE_BREAKS, escapeLineBreak) : text;
}

/**
 * One message as exactly one line: compact JSON (which escapes every line break inside strings,
 * including U+0085, U+2028 and U+2029) and a final `\n`. Throws a TypeError that says why when the
 * message cannot be serialised. With `meta`, the message is a request whose params get that
 * `_meta` (merged over a `_meta` of their own, if they have one).
 */
export function serialize(message: JsonRpcMessage, meta?: PreparedMeta): string {
  let text: string | undefined;
  let escaped = false;
  try {
    if (meta !== undefined) {
      text = splicedMeta(message, meta);
      escaped = text !== undefined;
    }
    text ??= JSON.stringify(meta === undefined ? message : withMeta(message, meta));
  } catch (error) {
    throw new TypeError(`the message cannot be serialised as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof text !== 'string' || text[0] !== '{') {
    throw new TypeError('a JSON-RPC message must serialise to a JSON object');
  }
  return `${escaped ? text : escapeLineBreaks(text)}\n`;
}

/**
 * The message's JSON, line breaks escaped, with `meta` spliced in as the last key of its params: no
 * copy of the params, no second serialisation or scan of the meta. `params` is the last key of a
 * request as Connection builds it; for anything else (params of their own `_meta`, a toJSON,
 * another key order) it gives undefined, and the caller serialises the merged copy.
 */
function splicedMeta(message: JsonRpcMessage, meta: PreparedMeta): string | undefined {
  const { params } = message as { params?: JsonObject };
  if (params === undefined) {
    const text = JSON.stringify(message);
    if (text?.endsWith('}') && !('params' in message))
      return `${escapeLineBreaks(text).slice(0, -1)},"params":{"_meta":${meta.json}}}`;
  } else if (params._meta === undefined && typeof params.toJSON !== 'function') {
    const text = JSON.stringify(message);
    const keys = Object.keys(message);
    if (text?.endsWith('}}') && keys[keys.length - 1] === 'params') {
      // "params":{} ends in "{}}": nothing before our key, so no comma. (Escaping only rewrites
      // characters inside strings: the ending stays.)
      const empty = text.charCodeAt(text.length - 3) === 123;
      return `${escapeLineBreaks(text).slice(0, -2)}${empty ? '' : ','}"_meta":${meta.json}}}`;
    }
  }
  return undefined;
}

/**
 * The request with `meta` in its params as an object (merged over a `_meta` of its own): for a
 * transport that reads the params (HTTP routing headers) or serialises the message itself.
 */
export function withMeta(message: JsonRpcMessage, meta: PreparedMeta): JsonRpcMessage {
  const { params } = message as { params?: JsonObject };
  const callerMeta = params?._meta as JsonObject | undefined;
  return { ...message, params: { ...params, _meta: { ...callerMeta, ...meta.value } } } as JsonRpcMessage;
}
