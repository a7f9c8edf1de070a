import { isConduitError, RequestTimeoutError } from '../errors.js';

/** An attribute value as OpenTelemetry takes it (the subset these spans use). */
export type AttributeValue = string | number | boolean;
/** Span attributes by name. */
export type Attributes = Record<string, AttributeValue>;

// The names of the OpenTelemetry semantic conventions for MCP (open-telemetry/semantic-conventions-genai,
// docs/gen-ai/mcp.md), and of the general ones they use.
/** The request's method (required on every MCP span). */
export const MCP_METHOD_NAME = 'mcp.method.name';
/** The negotiated MCP version, e.g. 2026-07-28. */
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
/** The `uri` of resources/read, subscribe and unsubscribe. */
export const MCP_RESOURCE_URI = 'mcp.resource.uri';
/** The tool a tools/call calls. */
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** The prompt a prompts/get gets. */
export const GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** `execute_tool` on a tools/call. */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** A tools/call's arguments as JSON (opt-in). */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** A tools/call's result as JSON (opt-in). */
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** The class of a failure (see errorType). */
export const ERROR_TYPE = 'error.type';
/** The JSON-RPC error code of an error answer. */
export const RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/** `pipe` (stdio) or `tcp` (HTTP). */
export const NETWORK_TRANSPORT = 'network.transport';
/** `http` over HTTP. */
export const NETWORK_PROTOCOL_NAME = 'network.protocol.name';
/** The HTTP server's host. */
export const SERVER_ADDRESS = 'server.address';
/** The HTTP server's port. */
export const SERVER_PORT = 'server.port';
// This library's own: the server's configured name, the era, the restart count.
/** The client's `name` (a pool's server name). */
export const SERVER_NAME = 'conduit_mcp.server.name';
/** `modern` or `legacy`, on connect and reconnect spans. */
export const ERA = 'conduit_mcp.era';
/** The restart's number, on reconnect spans. */
export const RECONNECT_ATTEMPT = 'conduit_mcp.reconnect.attempt';

/** The methods whose `uri` parameter is `mcp.resource.uri`. */
const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

const nameOf = (params: Record<string, unknown> | undefined): string | undefined =>
  typeof params?.name === 'string' ? params.name : undefined;

/** The span name the conventions prescribe: `{method} {tool or prompt}`, else the method. */
export function spanName(method: string, params: Record<string, unknown> | undefined): string {
  if (method !== 'tools/call' && method !== 'prompts/get') return method;
  const target = nameOf(params);
  return target === undefined ? method : `${method} ${target}`;
}

/** A request span's attributes known when it starts (never the arguments). */
export function requestAttributes(
  method: string,
  params: Record<string, unknown> | undefined,
  common: Attributes,
): Attributes {
  const attributes: Attributes = { ...common, [MCP_METHOD_NAME]: method };
  if (method === 'tools/call') {
    const tool = nameOf(params);
    if (tool !== undefined) attributes[GEN_AI_TOOL_NAME] = tool;
    attributes[GEN_AI_OPERATION_NAME] = 'execute_tool';
  } else if (method === 'prompts/get') {
    const prompt = nameOf(params);
    if (prompt !== undefined) attributes[GEN_AI_PROMPT_NAME] = prompt;
  } else if (RESOURCE_METHODS.has(method) && typeof params?.uri === 'string') {
    attributes[MCP_RESOURCE_URI] = params.uri;
  }
  return attributes;
}

/**
 * `error.type` of a failed request: the JSON-RPC error code, `timeout`, or the error's class
 * name (`ConnectionClosedError`, `HttpError`...), all low-cardinality.
 */
export function errorType(error: unknown): string {
  const code = rpcStatusCode(error);
  if (code !== undefined) return code;
  if (error instanceof RequestTimeoutError) return 'timeout';
  if (error instanceof Error && error.name) return error.name;
  return '_OTHER';
}

/** The JSON-RPC error code of an error the server answered with, if it is one. */
export function rpcStatusCode(error: unknown): string | undefined {
  return isConduitError(error) && typeof error.code === 'number' ? String(error.code) : undefined;
}

/**
 * The network attributes of a transport spec, as the client's options give it: `pipe` for
 * stdio; `tcp`, `http` and the server's host and port for HTTP; none for a custom transport.
 */
export function networkAttributes(transport: unknown): Attributes {
  const spec = transport as { type?: unknown; url?: unknown } | undefined;
  if (spec?.type === 'stdio') return { [NETWORK_TRANSPORT]: 'pipe' };
  if (spec?.type !== 'http' || (typeof spec.url !== 'string' && !(spec.url instanceof URL))) return {};
  const url = new URL(spec.url);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return {
    [NETWORK_TRANSPORT]: 'tcp',
    [NETWORK_PROTOCOL_NAME]: 'http',
    [SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    [SERVER_PORT]: port,
  };
}

/** An HTTP transport spec's endpoint as OAuth messages name it (origin and path); undefined for any other. */
export function endpointOf(transport: unknown): string | undefined {
  const spec = transport as { type?: unknown; url?: unknown } | undefined;
  if (spec?.type !== 'http' || (typeof spec.url !== 'string' && !(spec.url instanceof URL))) return undefined;
  const url = new URL(spec.url);
  return `${url.origin}${url.pathname}`;
}
