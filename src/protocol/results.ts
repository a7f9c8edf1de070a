import type { LogLevel } from './meta.js';

/**
 * Result shapes of the server features, the same in both eras. Objects allow extra fields
 * (servers may send more); the fields named here are what the spec defines.
 */

/** Hints a server attaches to content or a resource about who it is for and how it matters. */
export interface Annotations {
  /** Who the content is meant for: the user, the model (`assistant`), or both. */
  audience?: Array<'user' | 'assistant'>;
  /** How important it is, from 0 (least) to 1 (most). */
  priority?: number;
  /** When it last changed, an ISO 8601 timestamp. */
  lastModified?: string;
}

/** The fields every content block may carry. */
interface BlockFields {
  /** The server's hints about audience and priority. */
  annotations?: Annotations;
  /** Metadata the server attached; not for the model. */
  _meta?: Record<string, unknown>;
}

/** A text content block. */
export interface TextContent extends BlockFields {
  /** Always `'text'`. */
  type: 'text';
  /** The text. */
  text: string;
}

/** An image content block. */
export interface ImageContent extends BlockFields {
  /** Always `'image'`. */
  type: 'image';
  /** Base64. */
  data: string;
  /** The image's media type, e.g. `image/png`. */
  mimeType: string;
}

/** An audio content block. */
export interface AudioContent extends BlockFields {
  /** Always `'audio'`. */
  type: 'audio';
  /** Base64. */
  data: string;
  /** The audio's media type, e.g. `audio/wav`. */
  mimeType: string;
}

/** The fields a listed resource and a link to one share. */
interface ResourceFields {
  /** The resource's URI, what `readResource` takes. */
  uri: string;
  /** Its name, for a program. */
  name: string;
  /** Its name for people, if the server gave one. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its media type, if known. */
  mimeType?: string;
  /** Its size in bytes, if known. */
  size?: number;
}

/** A content block that points to a resource instead of carrying it; read it with `readResource`. */
export interface ResourceLink extends BlockFields, ResourceFields {
  /** Always `'resource_link'`. */
  type: 'resource_link';
}

/** A text resource's contents. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** Its media type, if known. */
  mimeType?: string;
  /** The text. */
  text: string;
  /** Metadata the server attached. */
  _meta?: Record<string, unknown>;
}

/** A binary resource's contents. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** Its media type, if known. */
  mimeType?: string;
  /** Base64. */
  blob: string;
  /** Metadata the server attached. */
  _meta?: Record<string, unknown>;
}

/** A content block that carries a resource's contents. */
export interface EmbeddedResource extends BlockFields {
  /** Always `'resource'`. */
  type: 'resource';
  /** The contents, text or binary. */
  resource: TextResourceContents | BlobResourceContents;
}

/** Any content block of a tool result or a prompt message; tell them apart by `type`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Caching hints of modern list and read results. */
export interface CacheHints {
  /** How long the result stays fresh, ms; absent, negative or invalid means 0 (stale at once). */
  ttlMs?: number;
  /** Who may share a cached copy: `'public'` or `'private'` (or another value a server sends). */
  cacheScope?: 'public' | 'private' | string;
}

/** A page of a list result; `nextCursor`, when present, asks for the next. */
interface Page extends CacheHints {
  /** Pass it back as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;
  [key: string]: unknown;
}

/** A tool a server offers, as `tools/list` describes it. */
export interface Tool {
  /** The name `callTool` takes. */
  name: string;
  /** Its name for people, if the server gave one. */
  title?: string;
  /** What it does, for a model or a person. */
  description?: string;
  /** The JSON Schema of its arguments. */
  inputSchema: {
    /** Always `'object'`. */
    type: 'object';
    /** The schemas of the arguments, by name. */
    properties?: Record<string, unknown>;
    /** The arguments that must be given. */
    required?: string[];
    [key: string]: unknown;
  };
  /** The JSON Schema of its `structuredContent`, if it declares one. */
  outputSchema?: {
    /** Always `'object'`. */
    type: 'object';
    [key: string]: unknown;
  };
  /** Untrusted unless the server is trusted. */
  annotations?: Record<string, unknown>;
  /** Icons the server offers for the tool, as it sent them. */
  icons?: unknown[];
  /** Metadata the server attached. */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One page of `tools/list`. */
export interface ListToolsResult extends Page {
  /** The tools on this page. */
  tools: Tool[];
}

/** A `tools/call` result. */
export interface CallToolResult {
  /** What the tool returned, as content blocks. */
  content: ContentBlock[];
  /** The result as a JSON object, when the tool returns one (checked against the outputSchema of a listed tool). */
  structuredContent?: Record<string, unknown>;
  /** The tool failed: a result to show the model, not a protocol error. */
  isError?: boolean;
  /** Metadata the server attached. */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A resource a server offers, as `resources/list` describes it. */
export interface Resource extends ResourceFields {
  /** The server's hints about audience and priority. */
  annotations?: Annotations;
  [key: string]: unknown;
}

/** A family of resources whose URIs follow a template (RFC 6570), e.g. `file:///{path}`. */
export interface ResourceTemplate {
  /** The URI template. */
  uriTemplate: string;
  /** Its name, for a program. */
  name: string;
  /** Its name for people, if the server gave one. */
  title?: string;
  /** What its resources are. */
  description?: string;
  /** The media type of its resources, if they share one. */
  mimeType?: string;
  [key: string]: unknown;
}

/** One page of `resources/list`. */
export interface ListResourcesResult extends Page {
  /** The resources on this page. */
  resources: Resource[];
}

/** One page of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends Page {
  /** The templates on this page. */
  resourceTemplates: ResourceTemplate[];
}

/** A `resources/read` result. */
export interface ReadResourceResult extends CacheHints {
  /** The resource's contents: one entry, or several for a resource made of parts. */
  contents: Array<TextResourceContents | BlobResourceContents>;
  [key: string]: unknown;
}

/** A prompt a server offers, as `prompts/list` describes it. */
export interface Prompt {
  /** The name `getPrompt` takes. */
  name: string;
  /** Its name for people, if the server gave one. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** The arguments it takes. */
  arguments?: Array<{
    /** The argument's name. */
    name: string;
    /** What it is. */
    description?: string;
    /** Whether it must be given. */
    required?: boolean;
  }>;
  [key: string]: unknown;
}

/** One page of `prompts/list`. */
export interface ListPromptsResult extends Page {
  /** The prompts on this page. */
  prompts: Prompt[];
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who says it. */
  role: 'user' | 'assistant';
  /** What it says. */
  content: ContentBlock;
}

/** A `prompts/get` result. */
export interface GetPromptResult {
  /** What the prompt is for. */
  description?: string;
  /** The prompt's messages, in order. */
  messages: PromptMessage[];
  [key: string]: unknown;
}

/** A `completion/complete` result. */
export interface CompleteResult {
  /** The suggestions. */
  completion: {
    /** Suggested values (the protocol allows at most 100). */
    values: string[];
    /** How many values there are in all, if the server knows. */
    total?: number;
    /** Whether there are more values than those sent. */
    hasMore?: boolean;
  };
  [key: string]: unknown;
}

/** A `notifications/message` payload. */
export interface LogMessage {
  /** Its severity. */
  level: LogLevel;
  /** The name of the server's logger that sent it, if any. */
  logger?: string;
  /** The message: a string or any JSON value. */
  data: unknown;
}
