import { Buffer } from 'node:buffer';
import type { JsonObject, JsonRpcMessage, JsonRpcRequest } from './messages.js';

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
 * serialize(), with the line's length in UTF-8 bytes (what a write queue's cap counts). A request
 * or notification as Connection builds it takes envelopeLine (the same text, without
 * JSON.stringify's walk over the envelope); anything else, and any failure, the generic path.
 */
export function serializeLine(message: JsonRpcMessage, meta?: PreparedMeta): SerializedLine {
  let line: SerializedLine | undefined;
  try {
    line = envelopeLine(message, meta);
  } catch {
    // The generic path fails the same way, and reports it as JSON.stringify does.
    line = undefined;
  }
  return line ?? genericLine(message, meta);
}

/**
 * Any message, through JSON.stringify. The length is taken once, on the flat text JSON.stringify
 * made (Node's fast path), and tells whether the text needs the line-break scan at all: the three
 * raw line breaks are not ASCII, and a text of as many bytes as code units is ASCII. With `meta`,
 * its text is spliced in as the last key of the params: no copy of the params, no second
 * serialisation or scan of the meta.
 */
function genericLine(message: JsonRpcMessage, meta: PreparedMeta | undefined): SerializedLine {
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

/** A JSON value's text with its line breaks escaped (scanned only when not ASCII), and its bytes. */
function escapedPart(json: string): { text: string; bytes: number } {
  const bytes = Buffer.byteLength(json);
  if (bytes === json.length) return { text: json, bytes };
  const text = escapeLineBreaks(json);
  return { text, bytes: text === json ? bytes : Buffer.byteLength(text) };
}

/** The last method's JSON and its bytes: a client sends the same few methods over and over. */
let lastMethod: string | undefined;
let lastMethodPart = { text: '', bytes: 0 };

/**
 * A request or notification as Connection builds it (`jsonrpc`, `id`, `method`, `params`, in that
 * order, `id` and `params` optional, params a plain object) as one line: the text genericLine
 * gives, byte for byte, but only the params (and a string id) go through JSON.stringify, and each
 * part is measured on its own flat text. Line breaks can only be inside strings, so escaping each
 * part is escaping the whole. Undefined for any other message (another key or order, an id that
 * is neither a string nor a safe integer, params that are not a plain object or have a toJSON or,
 * with `meta`, a `_meta` of their own; a toJSON on the message).
 */
function envelopeLine(message: JsonRpcMessage, meta: PreparedMeta | undefined): SerializedLine | undefined {
  const keys = Object.keys(message);
  const withId = keys[1] === 'id';
  const count = keys.length - (withId ? 1 : 0);
  if (keys[0] !== 'jsonrpc' || keys[withId ? 2 : 1] !== 'method' || count < 2 || count > 3) return undefined;
  if (count === 3 && keys[keys.length - 1] !== 'params') return undefined;
  const { jsonrpc, id, method, params } = message as JsonRpcRequest;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (typeof (message as { toJSON?: unknown }).toJSON === 'function') return undefined;
  let text = '{"jsonrpc":"2.0"';
  let bytes = text.length;
  if (withId) {
    let idPart: string;
    let idBytes: number;
    if (typeof id === 'number' && Number.isSafeInteger(id)) {
      idPart = `${id}`;
      idBytes = idPart.length;
    } else if (typeof id === 'string') {
      ({ text: idPart, bytes: idBytes } = escapedPart(JSON.stringify(id)));
    } else return undefined;
    text += `,"id":${idPart}`;
    bytes += 6 + idBytes;
  }
  if (method !== lastMethod) {
    lastMethodPart = escapedPart(JSON.stringify(method));
    lastMethod = method;
  }
  text += `,"method":${lastMethodPart.text}`;
  bytes += 10 + lastMethodPart.bytes;
  if (count === 2) {
    if (meta === undefined) return { text: `${text}}\n`, bytes: bytes + 2 };
    return { text: `${text},"params":{"_meta":${meta.json}}}\n`, bytes: bytes + 19 + meta.bytes + 3 };
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  if (typeof params.toJSON === 'function') return undefined;
  if (meta !== undefined && params._meta !== undefined) return undefined;
  const part = escapedPart(JSON.stringify(params));
  if (meta === undefined)
    return { text: `${text},"params":${part.text}}\n`, bytes: bytes + 10 + part.bytes + 2 };
  if (part.text === '{}') {
    return { text: `${text},"params":{"_meta":${meta.json}}}\n`, bytes: bytes + 19 + meta.bytes + 3 };
  }
  return {
    text: `${text},"params":${part.text.slice(0, -1)},"_meta":${meta.json}}}\n`,
    bytes: bytes + 10 + part.bytes - 1 + 9 + meta.bytes + 3,
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
