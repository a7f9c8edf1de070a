/**
 * Anthropic Messages API: client tools with `input_schema`
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use), `tool_use`
 * blocks with their input as an object, and `tool_result` blocks holding text and base64 images
 * (JPEG, PNG, GIF, WebP), with `is_error` for a failed tool.
 */
import type { SchemaObject } from '../schema/json-schema-node.js';
import { COMMON_IMAGE_TYPES, type ProviderAdapter, valueCall } from './adapter.js';

/** A Messages API tool (assignable to the `@anthropic-ai/sdk` package's Tool). */
export interface AnthropicTool {
  /** The tool's name (the pool or server name). */
  name: string;
  /** The tool's description, or its title when it has none. */
  description?: string;
  /** The converted input schema. */
  input_schema: SchemaObject & {
    /** Always `'object'`. */
    type: 'object';
  };
}

/** A `tool_use` content block of an assistant message. */
export interface AnthropicToolUse {
  /** Always `'tool_use'`. */
  type: 'tool_use';
  /** The call's id, echoed as `tool_use_id`. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as an object. */
  input: unknown;
}

/** A content block inside a tool result. */
export type AnthropicResultContent =
  | {
      /** A text block. */
      type: 'text';
      /** The text. */
      text: string;
    }
  | {
      /** An image block. */
      type: 'image';
      /** The image, inline. */
      source: {
        /** Always `'base64'`. */
        type: 'base64';
        /** Its media type. */
        media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
        /** Base64. */
        data: string;
      };
    };

/** The `tool_result` block answering one call (assignable to ToolResultBlockParam). */
export interface AnthropicToolResult {
  /** Always `'tool_result'`. */
  type: 'tool_result';
  /** The `id` of the `tool_use` it answers. */
  tool_use_id: string;
  /** The result as text and image blocks. */
  content: AnthropicResultContent[];
  /** True when the tool failed. */
  is_error?: boolean;
}

/** The Messages API. */
export const anthropic: ProviderAdapter<AnthropicTool, AnthropicToolUse, AnthropicToolResult> = {
  media: { image: (mimeType) => COMMON_IMAGE_TYPES.has(mimeType), audio: () => false },
  define(tool, parameters) {
    const description = tool.description ?? tool.title;
    return {
      name: tool.name,
      ...(description !== undefined && { description }),
      input_schema: { ...(parameters ?? {}), type: 'object' },
    };
  },
  parseCall: (call) => valueCall(call, 'id', 'name', 'input'),
  resultBlock(call, result) {
    const content = result.parts.map(
      (part): AnthropicResultContent =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : {
              type: 'image',
              source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.data },
            },
    );
    return {
      type: 'tool_result',
      tool_use_id: call.id,
      content,
      ...(result.isError && { is_error: true }),
    };
  },
};
