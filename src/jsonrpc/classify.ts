import type {
  JsonRpcErrorResponse,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcSuccessResponse,
  RequestId,
} from './messages.js';

/** What {@link classify} found a value to be: one kind of message (typed), or invalid with the reason. */
export type Classified =
  | {
      /** A request. */
      kind: 'request';
      /** The value, typed. */
      message: JsonRpcRequest;
    }
  | {
      /** A notification. */
      kind: 'notification';
      /** The value, typed. */
      message: JsonRpcNotification;
    }
  | {
      /** A success response. */
      kind: 'response';
      /** The value, typed. */
      message: JsonRpcSuccessResponse;
    }
  | {
      /** An error response. */
      kind: 'error';
      /** The value, typed. */
      message: JsonRpcErrorResponse;
    }
  | {
      /** Not a valid MCP JSON-RPC message. */
      kind: 'invalid';
      /** Why, in words. */
      reason: string;
    };

function invalid(reason: string): Classified {
  return { kind: 'invalid', reason };
}

/** A JSON object (not null, not an array); its prototype does not matter, only own properties count. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** MCP ids are strings or integers; JSON-RPC's null and fractional ids are refused. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

const has = (value: object, key: string) => Object.hasOwn(value, key);

/**
 * Tells apart a request, a notification, a success response, an error response, or an invalid
 * message (with the reason), under JSON-RPC 2.0 and the MCP rules (string or integer ids, never
 * null in a request; params an object; no batches). Pure: it never throws.
 */
export function classify(value: unknown): Classified {
  if (Array.isArray(value)) return invalid('batches (JSON arrays) are not allowed in MCP');
  if (!isJsonObject(value))
    return invalid(`expected a JSON object, got ${value === null ? 'null' : typeof value}`);
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');

  if (has(value, 'method')) {
    if (typeof value.method !== 'string') return invalid('"method" must be a string');
    if (has(value, 'result') || has(value, 'error'))
      return invalid('a message cannot have both "method" and "result"/"error"');
    if (has(value, 'params') && !isJsonObject(value.params)) return invalid('"params" must be an object');
    if (!has(value, 'id')) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isRequestId(value.id)) return invalid('a request "id" must be a string or an integer');
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }

  const hasResult = has(value, 'result');
  const hasError = has(value, 'error');
  if (hasResult && hasError) return invalid('a response cannot have both "result" and "error"');
  if (hasResult) {
    if (!isRequestId(value.id)) return invalid('a response "id" must be a string or an integer');
    return { kind: 'response', message: value as unknown as JsonRpcSuccessResponse };
  }
  if (hasError) {
    if (has(value, 'id') && value.id !== null && !isRequestId(value.id)) {
      return invalid('an error response "id" must be a string, an integer or null');
    }
    const error = value.error;
    if (!isJsonObject(error)) return invalid('"error" must be an object');
    if (typeof error.code !== 'number' || !Number.isInteger(error.code))
      return invalid('"error.code" must be an integer');
    if (typeof error.message !== 'string') return invalid('"error.message" must be a string');
    return { kind: 'error', message: value as unknown as JsonRpcErrorResponse };
  }
  return invalid('neither a request, a notification nor a response (no "method", "result" or "error")');
}

const RESPONSE_HEAD = '{"jsonrpc":"2.0","id":';
const RESULT_KEY = ',"result":';

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

/**
 * A success response with an integer id written as most servers write one, this very text
 * `{"jsonrpc":"2.0","id":<integer>,"result":<value>}`: only the value goes through JSON.parse,
 * and the envelope needs no classification. If the value parses, the whole line is exactly that
 * object (three keys, no others), which the full path would classify as this response. Undefined
 * for any other line (spacing, key order, another id, a value that does not parse), which takes
 * the full path. Bench/cpu.ts, "in-flight conduit": 139,000 calls/s with it, 126,000 without
 * (7.6 against 8.6 µs of CPU a call); see BENCHMARKS.md, issue 36.
 */
function plainResponse(line: string): Classified | undefined {
  if (!line.startsWith(RESPONSE_HEAD) || line.charCodeAt(line.length - 1) !== 0x7d) return undefined;
  const start = RESPONSE_HEAD.length;
  let end = start;
  const negative = line.charCodeAt(end) === 0x2d;
  if (negative) end++;
  // A JSON integer: 0, or a digit 1-9 and more digits (no leading zero), read as it is scanned.
  let code = line.charCodeAt(end);
  let id = code - 0x30;
  if (id === 0) end++;
  else if (id >= 1 && id <= 9) {
    for (code = line.charCodeAt(++end); isDigit(code); code = line.charCodeAt(++end))
      id = id * 10 + code - 0x30;
  } else return undefined;
  // Up to 15 digits the sum is exact and a safe integer; longer ids take the full path.
  if (end - start - (negative ? 1 : 0) > 15 || !line.startsWith(RESULT_KEY, end)) return undefined;
  let result: unknown;
  try {
    result = JSON.parse(line.slice(end + RESULT_KEY.length, -1));
  } catch {
    return undefined;
  }
  return { kind: 'response', message: { jsonrpc: '2.0', id: negative ? -id : id, result } };
}

/** JSON.parse, then classify; a line that is not JSON is invalid with the parser's reason. */
export function parseMessage(line: string): Classified {
  const response = plainResponse(line);
  if (response !== undefined) return response;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return invalid(`not JSON (${(error as Error).message})`);
  }
  return classify(value);
}
