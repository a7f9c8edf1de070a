import type { LogLevel } from './meta.js';

/**
 * Result shapes of the server features, the same in both eras. Objects allow extra fields
 * (servers may send more); the fields named here are what the spec defines.
 */

export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

/** The fields every content block may carry. */
interface BlockFields {
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

export interface TextContent extends BlockFields {
  type: 'text';
  text: string;
}

export interface ImageContent extends BlockFields {
  type: 'image';
  /** Base64. */
  data: string;
  mimeType: string;
}

export interface AudioContent extends BlockFields {
  type: 'audio';
  /** Base64. */
  data: string;
  mimeType: string;
}

/** The fields a listed resource and a link to one share. */
interface ResourceFields {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface ResourceLink extends BlockFields, ResourceFields {
  type: 'resource_link';
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** Base64. */
  blob: string;
  _meta?: Record<string, unknown>;
}

export interface EmbeddedResource extends BlockFields {
  type: 'resource';
  resource: TextResourceContents | BlobResourceContents;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** Caching hints of modern list and read results. */
export interface CacheHints {
  ttlMs?: number;
  cacheScope?: 'public' | 'private' | string;
}

/** A page of a list result; `nextCursor`, when present, asks for the next. */
interface Page extends CacheHints {
  nextCursor?: string;
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: {
    type: 'object';
    properties?: Record<string, unknown>;
    required?: string[];
    [key: string]: unknown;
  };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  /** Untrusted unless the server is trusted. */
  annotations?: Record<string, unknown>;
  icons?: unknown[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ListToolsResult extends Page {
  tools: Tool[];
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  /** The tool failed: a result to show the model, not a protocol error. */
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Resource extends ResourceFields {
  annotations?: Annotations;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ListResourcesResult extends Page {
  resources: Resource[];
}

export interface ListResourceTemplatesResult extends Page {
  resourceTemplates: ResourceTemplate[];
}

export interface ReadResourceResult extends CacheHints {
  contents: Array<TextResourceContents | BlobResourceContents>;
  [key: string]: unknown;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  [key: string]: unknown;
}

export interface ListPromptsResult extends Page {
  prompts: Prompt[];
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  [key: string]: unknown;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

/** A `notifications/message` payload. */
export interface LogMessage {
  level: LogLevel;
  logger?: string;
  data: unknown;
}
