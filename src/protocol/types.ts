/** MCP vocabulary shared by both eras: the shapes the Client reads and returns. */

/** Who a peer says it is (self-reported: never trust it for security decisions). */
export interface Implementation {
  /** Its name, for a program. */
  name: string;
  /** Its version. */
  version: string;
  /** Its name for people. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its website. */
  websiteUrl?: string;
  /** Its icons, as sent (the Client's `serverInfo` leaves unsafe ones out). */
  icons?: unknown[];
  [key: string]: unknown;
}

/** What a server declares it can do; the Client refuses a request whose capability is missing. */
export interface ServerCapabilities {
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, unknown>;
  /** It sends log messages and takes a log level. */
  logging?: Record<string, unknown>;
  /** It answers `completion/complete`. */
  completions?: Record<string, unknown>;
  /** It offers prompts. */
  prompts?: {
    /** It notifies when its prompt list changes. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** It offers resources. */
  resources?: {
    /** It takes `resources/subscribe`. */
    subscribe?: boolean;
    /** It notifies when its resource list changes. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** It offers tools. */
  tools?: {
    /** It notifies when its tool list changes. */
    listChanged?: boolean;
    [key: string]: unknown;
  };
  /** Protocol extensions it supports, by id (e.g. the skills extension). */
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the client declares it can do; derived from the `handlers` and `roots` options. */
export interface ClientCapabilities {
  /** It answers `roots/list`. */
  roots?: Record<string, unknown>;
  /** It answers `sampling/createMessage`. */
  sampling?: Record<string, unknown>;
  /** It answers `elicitation/create`, in the modes named. */
  elicitation?: Record<string, unknown>;
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, unknown>;
  /** Protocol extensions it supports, by id. */
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

/** Answers `elicitation/create`: its params in, the ElicitResult (action, content) out. */
export type ElicitationHandler = (
  params: Record<string, unknown>,
  context: HandlerContext,
) => Promise<unknown>;
/** Answers `sampling/createMessage`: its params in, the CreateMessageResult out. */
export type SamplingHandler = (params: Record<string, unknown>, context: HandlerContext) => Promise<unknown>;
/** Answers `roots/list`: its params in, the ListRootsResult (`{ roots }`) out. */
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
