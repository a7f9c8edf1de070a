import { Buffer } from 'node:buffer';
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
  /** `json`'s length in UTF-8 bytes. */
  readonly bytes: number;
}

export function prepareMeta(value: JsonObject): PreparedMeta {
  const json = escapeLineBreaks(JSON.stringify(value));
  return { value: Object.freeze({ ...value }), json, bytes: Buffer.byteLength(json) };
}

function escapeLineBreaks(text: string): string {
  return HAS_UNESCAPED_LINE_BREAK.test(text) ? text.replace(UNESCAPED_LINE_BREAKS, escapeLineBreak) : text;
}

/** One message as one line, and that line's length in UTF-8 bytes (the `\n` included). */
export interface SerializedLine {
  readonly text: string;
  readonly bytes: number;
}

/**
 * One message as exactly one line: compact JSON (which escapes every line break inside strings,
 * including U+0085, U+2028 and U+2029) and a final `\n`. Throws a TypeError that says why when the
 * message cannot be serialised. With `meta`, the message is a request whose params get that
 * `_meta` (merged over a `_meta` of their own, if they have one).
 */
export function serialize(message: JsonRpcMessage, meta?: PreparedMeta): string {
  return serializeLine(message, meta).text;
}

/** Where a prepared `_meta` goes in a request's JSON (see spliceOf). */
type Splice = 'new-params' | 'only-key' | 'last-key';

/**
 * serialize(), with the line's length in UTF-8 bytes (what a write queue's cap counts). The length
 * is taken once, on the flat text JSON.stringify made (Node's fast path), and tells whether the
 * text needs the line-break scan at all: the three raw line breaks are not ASCII, and a text of
 * as many bytes as code units is ASCII. With `meta`, its text is spliced in as the last key of the
 * params: no copy of the params, no second serialisation or scan of the meta.
 */
export function serializeLine(message: JsonRpcMessage, meta?: PreparedMeta): SerializedLine {
  let json: string | undefined;
  let splice: Splice | undefined;
  try {
    if (meta !== undefined && spliceable(message)) {
      json = JSON.stringify(message);
      splice = spliceOf(message, json);
    }
    if (splice === undefined) json = JSON.stringify(meta === undefined ? message : withMeta(message, meta));
  } catch (error) {
    throw new TypeError(`the message cannot be serialised as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof json !== 'string' || json[0] !== '{') {
    throw new TypeError('a JSON-RPC message must serialise to a JSON object');
  }
  let bytes = Buffer.byteLength(json);
  if (bytes !== json.length) {
    const escaped = escapeLineBreaks(json);
    if (escaped !== json) {
      json = escaped;
      bytes = Buffer.byteLength(json);
    }
  }
  if (splice === undefined) return { text: `${json}\n`, bytes: bytes + 1 };
  // (Escaping only rewrites characters inside strings: the ending spliceOf saw stays.)
  const cut = splice === 'new-params' ? 1 : 2;
  const head =
    splice === 'new-params' ? ',"params":{"_meta":' : splice === 'only-key' ? '"_meta":' : ',"_meta":';
  return {
    text: `${json.slice(0, -cut)}${head}${meta!.json}}}\n`,
    bytes: bytes - cut + head.length + meta!.bytes + 3,
  };
}

/** Whether the request's params leave room for a spliced `_meta` (none of their own, no toJSON). */
function spliceable(message: JsonRpcMessage): boolean {
  const { params } = message as { params?: JsonObject };
  return params === undefined || (params._meta === undefined && typeof params.toJSON !== 'function');
}

/**
 * Where the meta goes in the message's JSON: `params` is the last key of a request as Connection
 * builds it, and a request without params gets them. For anything else (another key order, a
 * toJSON of the message) undefined, and the caller serialises the merged copy.
 */
function spliceOf(message: JsonRpcMessage, json: string | undefined): Splice | undefined {
  if ((message as { params?: JsonObject }).params === undefined) {
    return json?.endsWith('}') && !('params' in message) ? 'new-params' : undefined;
  }
  const keys = Object.keys(message);
  if (!json?.endsWith('}}') || keys[keys.length - 1] !== 'params') return undefined;
  // "params":{} ends in "{}}": nothing before our key, so no comma.
  return json.charCodeAt(json.length - 3) === 123 ? 'only-key' : 'last-key';
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
