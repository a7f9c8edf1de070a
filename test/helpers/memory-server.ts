// A scriptable MCP server on the server end of a memory pair (test/helpers/memory-transport.ts):
// either era, the handshake and discover built in, every other method from the test's handlers.
import type { JsonObject, JsonRpcMessage, JsonRpcRequest, RequestId } from '../../src/jsonrpc/messages.js';
import { type MemoryPeer, memorySpec } from './memory-transport.js';

export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

/** Thrown by a handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Answers one request: a result, `undefined` for no answer (the request stays open), or throws RpcError. */
export type Handler = (params: JsonObject, request: JsonRpcRequest, server: MemoryServer) => unknown;

export interface MemoryServerOptions {
  era: 'modern' | 'legacy';
  capabilities?: JsonObject;
  handlers?: Record<string, Handler>;
}

/** One server "process": a new one is made for each (re)start of the client. */
export class MemoryServer {
  readonly peer: MemoryPeer;
  readonly era: 'modern' | 'legacy';
  /** Open `subscriptions/listen` streams (modern), by request id, with their filters. */
  readonly listens = new Map<RequestId, JsonObject>();
  readonly #capabilities: JsonObject;
  readonly #handlers: Record<string, Handler>;

  constructor(peer: MemoryPeer, options: MemoryServerOptions) {
    this.peer = peer;
    this.era = options.era;
    this.#capabilities = options.capabilities ?? { tools: { listChanged: true } };
    this.#handlers = options.handlers ?? {};
    peer.on('message', (message) => this.#onMessage(message));
  }

  /** The requests of `method` received so far. */
  requests(method: string): JsonRpcRequest[] {
    return this.peer.received.filter(
      (message): message is JsonRpcRequest =>
        'method' in message && 'id' in message && message.method === method,
    );
  }

  /** The notifications of `method` received so far. */
  notifications(method: string): JsonRpcMessage[] {
    return this.peer.received.filter(
      (message) => 'method' in message && !('id' in message) && message.method === method,
    );
  }

  notify(method: string, params: JsonObject = {}): void {
    this.peer.send({ jsonrpc: '2.0', method, params });
  }

  /** Sends a change notification on every open listen stream whose filter has `filterKey` (modern). */
  notifyListeners(method: string, filterKey: string, params: JsonObject = {}): void {
    for (const [id, filter] of this.listens) {
      const wanted =
        filterKey === 'resourceSubscriptions'
          ? ((filter.resourceSubscriptions as string[] | undefined) ?? []).includes(params.uri as string)
          : filter[filterKey] === true;
      if (wanted) this.notify(method, { ...params, _meta: { [SUB_ID]: id } });
    }
  }

  /** Answers a request that was left open. */
  answer(id: RequestId, result: unknown): void {
    this.peer.send({ jsonrpc: '2.0', id, result } as JsonRpcMessage);
  }

  #builtIn(method: string): Handler | undefined {
    if (this.era === 'legacy') {
      if (method === 'initialize')
        return () => ({
          protocolVersion: '2025-11-25',
          capabilities: this.#capabilities,
          serverInfo: { name: 'memory', version: '1.0.0' },
        });
      return undefined;
    }
    if (method === 'server/discover')
      return () => ({ supportedVersions: ['2026-07-28'], capabilities: this.#capabilities });
    if (method === 'subscriptions/listen')
      return (params, request) => {
        const filter = (params.notifications ?? {}) as JsonObject;
        this.listens.set(request.id, filter);
        this.notify('notifications/subscriptions/acknowledged', {
          _meta: { [SUB_ID]: request.id },
          notifications: filter,
        });
        return undefined;
      };
    return undefined;
  }

  #onMessage(message: JsonRpcMessage): void {
    if (!('method' in message)) return;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') {
        this.listens.delete((message.params as { requestId: RequestId }).requestId);
      }
      return;
    }
    const request = message as JsonRpcRequest;
    const handler = this.#handlers[request.method] ?? this.#builtIn(request.method);
    if (!handler) {
      this.peer.send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32601, message: `Method not found: ${request.method}` },
      });
      return;
    }
    let result: unknown;
    try {
      result = handler((request.params ?? {}) as JsonObject, request, this);
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      this.peer.send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: error.code, message: error.message, data: error.data },
      } as JsonRpcMessage);
      return;
    }
    if (result !== undefined) this.answer(request.id, result);
  }
}

/** A memory transport spec whose every (re)start gets a new MemoryServer, kept in `servers`. */
export function memoryServers(options: MemoryServerOptions): { spec: never; servers: MemoryServer[] } {
  const servers: MemoryServer[] = [];
  const spec = memorySpec((peer) => servers.push(new MemoryServer(peer, options)));
  return { spec, servers };
}
