/**
 * Gemini API: function declarations (https://ai.google.dev/api/caching#FunctionDeclaration), function
 * calls with `args` as an object, and `functionResponse` parts whose `response` holds `output` or
 * `error` (https://ai.google.dev/api/caching#FunctionResponse) and whose `parts` carry images inline.
 */
import type { SchemaObject } from '../schema/json-schema-node.js';
import { joinedText, type ProviderAdapter, valueCall } from './adapter.js';

/** A Gemini function declaration; `parameters` is absent for a tool without arguments. */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: SchemaObject;
}

/** A `functionCall` part's value. */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/** A `functionResponse` part answering one call. */
export interface GeminiFunctionResponsePart {
  functionResponse: {
    id?: string;
    name: string;
    response: { output: string } | { error: string };
    parts?: Array<{ inlineData: { mimeType: string; data: string } }>;
  };
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** The Gemini API. */
export const gemini: ProviderAdapter<
  GeminiFunctionDeclaration,
  GeminiFunctionCall,
  GeminiFunctionResponsePart
> = {
  media: { image: (mimeType) => IMAGE_TYPES.has(mimeType), audio: () => false },
  define(tool, parameters) {
    const description = tool.description ?? tool.title;
    return {
      name: tool.name,
      ...(description !== undefined && { description }),
      ...(parameters !== undefined && { parameters }),
    };
  },
  parseCall: (call) => valueCall(call, 'id', 'name', 'args'),
  resultBlock(call, result) {
    const text = joinedText(result.parts.filter((part) => part.type === 'text'));
    const media = result.parts.flatMap((part) =>
      part.type === 'text' ? [] : [{ inlineData: { mimeType: part.mimeType, data: part.data } }],
    );
    return {
      functionResponse: {
        ...(call.id !== '' && { id: call.id }),
        name: call.name,
        response: result.isError ? { error: text } : { output: text },
        ...(media.length > 0 && { parts: media }),
      },
    };
  },
};
