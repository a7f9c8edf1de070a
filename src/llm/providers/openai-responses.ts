/**
 * OpenAI Responses API: function tools (https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools),
 * `function_call` items with JSON-text arguments, and `function_call_output` items, whose output
 * may hold text and images (https://platform.openai.com/docs/guides/function-calling). No error flag:
 * a failed tool is marked in the text.
 */
import type { SchemaObject } from '../schema/json-schema-node.js';
import { COMMON_IMAGE_TYPES, field, type ProviderAdapter, parseJsonArguments } from './adapter.js';
import { ERROR_PREFIX } from './openai.js';

/** A Responses function tool (assignable to the `openai` package's FunctionTool). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: SchemaObject;
  strict: boolean;
}

/** A `function_call` output item. */
export interface OpenAIResponsesToolCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}

/** One piece of a function call's output. */
export type OpenAIResponsesOutputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' };

/** The `function_call_output` input item answering one call (assignable to ResponseInputItem.FunctionCallOutput). */
export interface OpenAIResponsesToolOutput {
  type: 'function_call_output';
  call_id: string;
  output: OpenAIResponsesOutputPart[];
}

/** The Responses API. */
export const openaiResponses: ProviderAdapter<
  OpenAIResponsesTool,
  OpenAIResponsesToolCall,
  OpenAIResponsesToolOutput
> = {
  media: { image: (mimeType) => COMMON_IMAGE_TYPES.has(mimeType), audio: () => false },
  define(tool, parameters, strict) {
    const description = tool.description ?? tool.title;
    return {
      type: 'function',
      name: tool.name,
      ...(description !== undefined && { description }),
      parameters: parameters ?? { type: 'object', properties: {} },
      strict,
    };
  },
  parseCall(call) {
    return {
      id: field(call, 'call_id'),
      name: field(call, 'name'),
      arguments: parseJsonArguments(field(call, 'arguments')),
    };
  },
  resultBlock(call, result) {
    const output: OpenAIResponsesOutputPart[] = result.parts.map((part) =>
      part.type === 'text'
        ? { type: 'input_text', text: part.text }
        : { type: 'input_image', image_url: `data:${part.mimeType};base64,${part.data}`, detail: 'auto' },
    );
    if (result.isError) output.unshift({ type: 'input_text', text: ERROR_PREFIX.trim() });
    if (output.length === 0) output.push({ type: 'input_text', text: '' });
    return { type: 'function_call_output', call_id: call.id, output };
  },
};
