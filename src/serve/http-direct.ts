import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { parseMessage } from '../jsonrpc/classify.js';
import { type PlainToolCall, plainToolCall, runToolCall } from './direct-calls.js';
import type { Gateway } from './gateway.js';
import { callOptions } from './host-server.js';
import type { Asker } from './input-rounds.js';

/**
 * A legacy-era host's `tools/call` POST, answered by the gateway from its body, beside the
 * library's handler: the library serves the legacy era over HTTP statelessly, with a new Server for
 * every request, which is most of a call's cost. Taken here only in the plain case: a POST of one
 * well-formed call, JSON in, both answer types accepted, a legacy protocol version (or none), no
 * progress token (progress needs the library's event stream). Anything else, a malformed request
 * included, is the library's to answer or refuse. The host closing the request cancels the call.
 * Returns false when the request is not taken.
 */
export function takeHttpCall(
  gateway: Gateway,
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
): boolean {
  const { headers } = request;
  if (request.method !== 'POST' || !headers['content-type']?.startsWith('application/json')) return false;
  const accept = headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  const version = headers['mcp-protocol-version'];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return false;
  const call = plainCall(body);
  if (call === undefined) return false;
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new Error('the host closed the request'));
  });
  const asker: Asker = {
    capabilities: undefined,
    ask: ({ method }) =>
      Promise.reject(
        new Error(
          `the gateway cannot send ${method} to a host that speaks the 2025 era over HTTP: that era is served without a session`,
        ),
      ),
  };
  const options = callOptions(gateway, controller.signal, undefined, async () => {});
  void runToolCall(gateway, call, options, asker).then((outcome) => {
    if (controller.signal.aborted) return;
    const text = JSON.stringify({ jsonrpc: '2.0', id: call.id, ...outcome });
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  });
  return true;
}

/** The body as one `tools/call` request the gateway takes (plainToolCall), without a progress token; else undefined. */
function plainCall(body: Buffer): (PlainToolCall & { id: string | number }) | undefined {
  const classified = parseMessage(body.toString('utf8'));
  if (classified.kind !== 'request' || classified.message.method !== 'tools/call') return undefined;
  const params = classified.message.params as Record<string, unknown> | undefined;
  const meta = params?._meta;
  if (typeof meta === 'object' && meta !== null && 'progressToken' in meta) return undefined;
  const call = plainToolCall(params);
  return call === undefined ? undefined : { ...call, id: classified.message.id };
}
