/** A JSON-RPC id. MCP allows strings and integers, never null in a request. */
export type RequestId = string | number;

/** A JSON object: string keys, any values. */
export type JsonObject = { [key: string]: unknown };

/** A JSON-RPC request: it expects a response with the same `id`. */
export interface JsonRpcRequest {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** Matches the response to the request. */
  id: RequestId;
  /** The method, e.g. `tools/call`. */
  method: string;
  /** The method's parameters. */
  params?: JsonObject;
}

/** A JSON-RPC notification: no `id`, no response. */
export interface JsonRpcNotification {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The method, e.g. `notifications/progress`. */
  method: string;
  /** The notification's parameters. */
  params?: JsonObject;
}

/** A JSON-RPC response that carries a result. */
export interface JsonRpcSuccessResponse {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** The `id` of the request it answers. */
  id: RequestId;
  /** The method's result. */
  result: unknown;
}

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  /** The error code; see {@link ErrorCodes}. */
  code: number;
  /** A short description. */
  message: string;
  /** More about the error, as the sender chose. */
  data?: unknown;
}

/** A JSON-RPC response that carries an error. */
export interface JsonRpcErrorResponse {
  /** Always `'2.0'`. */
  jsonrpc: '2.0';
  /** Absent or null when the peer could not read the request's id. */
  id?: RequestId | null;
  /** What went wrong. */
  error: JsonRpcErrorObject;
}

/** Either kind of JSON-RPC response. */
export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

/** Any JSON-RPC message MCP uses (no batches). */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
