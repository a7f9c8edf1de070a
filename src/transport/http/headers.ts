import type { JsonObject } from '../../jsonrpc/messages.js';
import { META_PROTOCOL_VERSION } from '../../protocol/meta.js';
import { checkToolHeaders, type HeaderBinding } from '../../protocol/tool-headers.js';

/**
 * Methods whose `Mcp-Name` header mirrors a body value: the core rows of 2026-07-28 §Standard
 * Request Headers, and the Tasks extension's (SEP-2663: every request for a task carries its id,
 * so that an intermediary routes it to the instance holding the task).
 */
const NAME_PARAM: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The modern protocol version a message declares in `_meta`, if any. */
export function modernVersionOf(message: { params?: JsonObject }): string | undefined {
  const version = (message.params?._meta as JsonObject | undefined)?.[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/**
 * A header value as the spec encodes it: plain when it is visible ASCII or inner spaces, else
 * `=?base64?<UTF-8 Base64>?=`; also encoded when it has leading or trailing spaces or looks like
 * the sentinel itself. Never lets CR, LF, NUL or TAB into a header.
 */
export function encodeHeaderValue(value: string): string {
  const plain =
    /^[\x20-\x7e]*$/.test(value) &&
    !value.startsWith(' ') &&
    !value.endsWith(' ') &&
    !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** A tool argument as header text: strings as they are, integers in decimal, booleans lowercase. */
export function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** The `Mcp-Param-*` headers for one `tools/call`: only for values present and not null. */
export function paramHeaders(bindings: readonly HeaderBinding[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { header, path } of bindings) {
    let value: unknown = args;
    for (const key of path) {
      value =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    const text = headerText(value);
    if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/**
 * The routing headers of a modern POST: `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name`
 * for tools/call, prompts/get, resources/read and the task requests.
 */
export function modernHeaders(
  message: { method: string; params?: JsonObject },
  version: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'mcp-protocol-version': version,
    'mcp-method': message.method,
  };
  const nameKey = NAME_PARAM[message.method];
  const name = nameKey ? message.params?.[nameKey] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/**
 * The `x-mcp-header` bindings of each tool, read from the tools/list results that pass through
 * (a tool with none, or with invalid ones, has no entry), for the `Mcp-Param-*` of its calls.
 */
export class ToolHeaderBindings {
  readonly #bindings = new Map<string, readonly HeaderBinding[]>();

  /** Reads one tools/list result. */
  learn(result: unknown): void {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools as Array<{ name?: unknown; inputSchema?: unknown } | null>) {
      const name = String(tool?.name);
      const check = checkToolHeaders(tool?.inputSchema);
      if (check.ok && check.bindings.length > 0) this.#bindings.set(name, check.bindings);
      else this.#bindings.delete(name);
    }
  }

  /** The `Mcp-Param-*` headers of one tools/call's params. */
  headersFor(params: JsonObject | undefined): Record<string, string> | undefined {
    const bindings = this.#bindings.get(String(params?.name));
    return bindings && paramHeaders(bindings, params?.arguments);
  }
}
