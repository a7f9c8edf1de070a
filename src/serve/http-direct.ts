import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { hasEnvelope, rpcError } from './direct-calls.js';
import type { Gateway } from './gateway.js';
import { callOptions, toolCall } from './host-server.js';

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
  const asker = {
    capabilities: undefined,
    ask: ({ method }: { method: string }) =>
      Promise.reject(
        new Error(
          `the gateway cannot send ${method} to a host that speaks the 2025 era over HTTP: that era is served without a session`,
        ),
      ),
  };
  const options = callOptions(gateway, controller.signal, undefined, async () => {});
  toolCall(gateway, call.name, call.args)
    .then((routed) => gateway.during(routed.server, asker, () => routed.run(options)))
    .then(
      (result) => ({ result }),
      (error: unknown) => ({ error: rpcError(error) }),
    )
    .then((outcome) => {
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

/** The body as one well-formed `tools/call` without a progress token or a modern envelope; else undefined. */
function plainCall(
  body: Buffer,
): { id: string | number; name: string; args: Record<string, unknown> | undefined } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0' || method !== 'tools/call') return undefined;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { name, arguments: args, _meta: meta } = params as Record<string, unknown>;
  if (typeof name !== 'string') return undefined;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return undefined;
  if (hasEnvelope(params as Record<string, unknown>)) return undefined;
  if (typeof meta === 'object' && meta !== null && 'progressToken' in meta) return undefined;
  return { id, name, args: args as Record<string, unknown> | undefined };
}
