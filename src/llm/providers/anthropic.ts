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
  name: string;
  description?: string;
  input_schema: SchemaObject & { type: 'object' };
}

/** A `tool_use` content block of an assistant message. */
export interface AnthropicToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** A content block inside a tool result. */
export type AnthropicResultContent =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: {
        type: 'base64';
        media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
        data: string;
      };
    };

/** The `tool_result` block answering one call (assignable to ToolResultBlockParam). */
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: AnthropicResultContent[];
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
