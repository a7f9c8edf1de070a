import { type JSONRPCMessage, PROTOCOL_VERSION_META_KEY, type Server } from '@modelcontextprotocol/server';
import type { RequestOptions } from '../index.js';
import type { Gateway } from './gateway.js';
import { callOptions, toolCall } from './host-server.js';
import type { HostStdioWire } from './host-stdio.js';
import type { Asker } from './input-rounds.js';
import { ReusedControllers } from './reused-controllers.js';

type RequestId = string | number;
const INTERNAL_ERROR = -32603;

/**
 * A legacy-era stdio host's `tools/call` requests, answered by the gateway straight from the wire,
 * beside the library's Server: the request goes to the pool as it came and the server's answer goes
 * back as it came, so the library's per-request validation and context (which the server behind and
 * the pool's client do again) are not paid twice on the busiest path. Everything else (the
 * handshake, lists, prompts, resources, the modern era's requests, a malformed call) is the
 * library's. Cancellation, progress, timeouts and the server's own requests to the host work as on
 * the library's path: the same `toolCall`, `callOptions` and `Gateway.during`.
 */
export class DirectCalls {
  readonly #gateway: Gateway;
  readonly #wire: HostStdioWire;
  /** The library's Server for this connection (the gateway asks the host through it). */
  #host: Server | undefined;
  #initializeId: RequestId | undefined;
  #legacy = false;
  readonly #live = new Map<RequestId, AbortController>();
  readonly #controllers = new ReusedControllers();
  /** The server behind asks the host through the library's Server for this connection. */
  readonly #asker: Asker = {
    capabilities: undefined,
    ask: ({ method, params }, signal) => {
      if (this.#host === undefined) return Promise.reject(new Error('the host session is not set up'));
      return this.#host.request({ method, params } as never, {
        signal,
        timeout: this.#gateway.settings.requestTimeout,
      });
    },
  };

  constructor(gateway: Gateway, wire: HostStdioWire) {
    this.#gateway = gateway;
    this.#wire = wire;
    wire.take = (message) => this.#take(message);
    void wire.closed.then(() => {
      for (const controller of this.#live.values()) controller.abort(new Error('the host disconnected'));
      this.#live.clear();
    });
  }

  /** The Server the library made for this connection. */
  set host(server: Server) {
    this.#host = server;
  }

  #take(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    const params = message.params as Record<string, unknown> | undefined;
    if ('id' in message) {
      if (message.method === 'tools/call' && this.#legacy) return this.#call(message.id, params);
      if (message.method === 'initialize' && !hasEnvelope(params)) this.#initializeId = message.id;
      return false;
    }
    if (message.method === 'notifications/initialized' && this.#initializeId !== undefined) {
      this.#legacy = true;
    } else if (message.method === 'notifications/cancelled') {
      const controller = this.#live.get(params?.requestId as RequestId);
      if (controller === undefined) return false;
      this.#live.delete(params?.requestId as RequestId);
      controller.abort(new Error(String(params?.reason ?? 'the host cancelled the request')));
      return true;
    }
    return false;
  }

  /** Takes a plain call (plainToolCall); any other stays the library's, to answer or refuse. */
  #call(id: RequestId, params: Record<string, unknown> | undefined): boolean {
    const call = plainToolCall(params);
    if (call === undefined || this.#live.has(id)) return false;
    const controller = this.#controllers.take();
    this.#live.set(id, controller);
    const progressToken = (params?._meta as Record<string, unknown> | undefined)?.progressToken;
    const options = callOptions(this.#gateway, controller.signal, progressToken, (notification) =>
      this.#wire.send({ jsonrpc: '2.0', ...notification } as JSONRPCMessage),
    );
    void runToolCall(this.#gateway, call, options, this.#asker).then((outcome) => {
      if (controller.signal.aborted) return;
      this.#live.delete(id);
      this.#controllers.give(controller);
      this.#wire.send({ jsonrpc: '2.0', id, ...outcome } as JSONRPCMessage).catch(() => {});
    });
    return true;
  }
}

/** A host's tool call the gateway takes itself: its name and arguments. */
export interface PlainToolCall {
  /** The tool's pool name. */
  readonly name: string;
  /** Its arguments, if the host gave any. */
  readonly args: Record<string, unknown> | undefined;
}

/**
 * The params of a legacy-era `tools/call` the gateway takes itself: a string name, arguments that
 * are an object or absent, no modern envelope. Undefined for anything else, which the library
 * answers or refuses.
 */
export function plainToolCall(params: Record<string, unknown> | undefined): PlainToolCall | undefined {
  const name = params?.name;
  const args = params?.arguments;
  if (typeof name !== 'string' || hasEnvelope(params)) return undefined;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return undefined;
  return { name, args: args as Record<string, unknown> | undefined };
}

/**
 * Runs a host's tool call through the pool, as the library's handler does (`toolCall`, under
 * `Gateway.during` so that the server's own requests go to `asker`); resolves with the JSON-RPC
 * outcome for the host, never rejects.
 */
export function runToolCall(
  gateway: Gateway,
  call: PlainToolCall,
  options: RequestOptions,
  asker: Asker,
): Promise<{ result: Record<string, unknown> } | { error: ReturnType<typeof rpcError> }> {
  return toolCall(gateway, call.name, call.args)
    .then((routed) => gateway.during(routed.server, asker, () => routed.run(options)))
    .then(
      (result) => ({ result: result as Record<string, unknown> }),
      (error: unknown) => ({ error: rpcError(error) }),
    );
}

/** A failed call as the JSON-RPC error the host gets, as the library would write it. */
export function rpcError(error: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: Number.isSafeInteger(code) ? (code as number) : INTERNAL_ERROR,
    message: typeof message === 'string' ? message : 'Internal error',
    ...(data !== undefined ? { data } : {}),
  };
}

/** Whether a request's params carry the modern era's envelope (its protocol version in `_meta`). */
function hasEnvelope(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}
