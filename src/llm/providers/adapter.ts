/** What each provider module supplies: its tool definition, how to read its tool call, its result block. */
import type { Tool } from '../../index.js';
import type { SchemaObject } from '../schema/json-schema-node.js';
import type { MediaSupport, ParsedCall, RenderedPart, RenderedResult } from '../types.js';

/** A provider's side of toolsFor and executeToolCall. */
export interface ProviderAdapter<Definition, Call, ResultBlock> {
  /** Media this provider takes inside a tool result. */
  readonly media: MediaSupport;
  /** The tool as the provider's definition, from its converted parameters. */
  define(tool: Tool, parameters: SchemaObject | undefined, strict: boolean): Definition;
  /** The model's call read from the provider's shape; never throws (bad arguments become an error). */
  parseCall(call: Call): ParsedCall;
  /** The provider's tool-result block for `call`. */
  resultBlock(call: ParsedCall, result: RenderedResult): ResultBlock;
}

/** Arguments sent as JSON text (OpenAI): an object, or why not. */
export function parseJsonArguments(text: unknown): ParsedCall['arguments'] {
  if (text === undefined || text === null || text === '') return { value: {} };
  if (typeof text !== 'string') return objectArguments(text);
  try {
    return objectArguments(JSON.parse(text));
  } catch (error) {
    return { error: `the arguments are not valid JSON (${(error as Error).message}); send one JSON object` };
  }
}

/** A call holding its id, name and arguments (as a value) under these keys (Anthropic, Gemini, the AI SDK). */
export function valueCall(call: unknown, id: string, name: string, args: string): ParsedCall {
  return {
    id: field(call, id),
    name: field(call, name),
    arguments: objectArguments((call as Record<string, unknown> | null)?.[args]),
  };
}

/** Arguments sent as a value: an object, or why not. */
function objectArguments(value: unknown): ParsedCall['arguments'] {
  if (value === undefined || value === null) return { value: {} };
  if (typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  return {
    error: `the arguments are ${Array.isArray(value) ? 'an array' : typeof value}, not a JSON object`,
  };
}

/** The text parts joined: what providers without structured tool results are given. */
export function joinedText(parts: readonly RenderedPart[]): string {
  return parts
    .map((part) => (part.type === 'text' ? part.text : `[${part.type} ${part.mimeType}]`))
    .join('\n\n');
}

/** A string field of an unknown call object, '' when absent. */
export function field(call: unknown, key: string): string {
  const value = (call as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : '';
}

/** The MIME types of images Anthropic, OpenAI and Gemini all take. */
export const COMMON_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
