/** MCP vocabulary shared by both eras: the shapes the Client reads and returns. */

/** Who a peer says it is (self-reported: never trust it for security decisions). */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: unknown[];
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, unknown>;
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  prompts?: { listChanged?: boolean; [key: string]: unknown };
  resources?: { subscribe?: boolean; listChanged?: boolean; [key: string]: unknown };
  tools?: { listChanged?: boolean; [key: string]: unknown };
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  roots?: Record<string, unknown>;
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Context given to a handler that answers one of the server's input requests. */
export interface HandlerContext {
  /** The client's name: show the user which server is asking. */
  server: string;
  /** Aborted when the request is cancelled, times out, or the connection is lost. */
  signal: AbortSignal;
}

export type ElicitationHandler = (
  params: Record<string, unknown>,
  context: HandlerContext,
) => Promise<unknown>;
export type SamplingHandler = (params: Record<string, unknown>, context: HandlerContext) => Promise<unknown>;
export type RootsHandler = (params: Record<string, unknown>, context: HandlerContext) => Promise<unknown>;

/**
 * Functions that answer the server's input requests, in both eras (legacy: server-to-client
 * requests; modern: `input_required` results). Declaring one declares the capability.
 */
export interface ClientHandlers {
  /** `elicitation/create`: resolve with an ElicitResult (`{ action, content? }`). */
  elicitation?: ElicitationHandler;
  /** `sampling/createMessage`: resolve with a CreateMessageResult. */
  sampling?: SamplingHandler;
  /** `roots/list`: resolve with `{ roots: [{ uri: 'file:///...', name? }] }`. */
  roots?: RootsHandler;
}

/** What beyond the handlers shapes our capabilities. */
export interface CapabilityOptions {
  /** @defaultValue ['form'] */
  elicitationModes?: readonly ('form' | 'url')[];
  samplingTools?: boolean;
  /** Declare roots.listChanged (legacy). */
  rootsListChanged?: boolean;
}

/** Our capabilities, derived from the handlers given. */
export function capabilitiesFor(
  handlers: ClientHandlers,
  options: CapabilityOptions = {},
): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.roots) capabilities.roots = options.rootsListChanged ? { listChanged: true } : {};
  if (handlers.sampling) capabilities.sampling = options.samplingTools ? { tools: {} } : {};
  if (handlers.elicitation) {
    capabilities.elicitation = Object.fromEntries(
      (options.elicitationModes ?? ['form']).map((mode) => [mode, {}]),
    );
  }
  return capabilities;
}

/** The input-request method each handler answers. */
export const INPUT_METHODS = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const satisfies Record<string, keyof ClientHandlers>;

export type InputMethod = keyof typeof INPUT_METHODS;
