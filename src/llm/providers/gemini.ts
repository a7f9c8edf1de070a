/**
 * Gemini API: function declarations (https://ai.google.dev/api/caching#FunctionDeclaration), function
 * calls with `args` as an object, and `functionResponse` parts whose `response` holds `output` or
 * `error` (https://ai.google.dev/api/caching#FunctionResponse) and whose `parts` carry images inline.
 */
import type { SchemaObject } from '../schema/json-schema-node.js';
import { joinedText, type ProviderAdapter, valueCall } from './adapter.js';

/** A Gemini function declaration; `parameters` is absent for a tool without arguments. */
export interface GeminiFunctionDeclaration {
  /** The tool's name. */
  name: string;
  /** The tool's description, or its title when it has none. */
  description?: string;
  /** The converted input schema (Gemini's subset). */
  parameters?: SchemaObject;
}

/** A `functionCall` part's value. */
export interface GeminiFunctionCall {
  /** The call's id, if the model gave one. */
  id?: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as an object. */
  args?: Record<string, unknown>;
}

/** A `functionResponse` part answering one call. */
export interface GeminiFunctionResponsePart {
  /** The response. */
  functionResponse: {
    /** The `id` of the call it answers, if it had one. */
    id?: string;
    /** The tool's name. */
    name: string;
    /** The result's text as `output`, or as `error` when the tool failed. */
    response:
      | {
          /** The result's text. */
          output: string;
        }
      | {
          /** The failed tool's text. */
          error: string;
        };
    /** The result's images, inline. */
    parts?: Array<{
      /** One image. */
      inlineData: {
        /** Its media type. */
        mimeType: string;
        /** Base64. */
        data: string;
      };
    }>;
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
