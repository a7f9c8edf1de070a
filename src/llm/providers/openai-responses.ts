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
  /** Always `'function'`. */
  type: 'function';
  /** The tool's name. */
  name: string;
  /** The tool's description, or its title when it has none. */
  description?: string;
  /** The converted input schema. */
  parameters: SchemaObject;
  /** Whether strict mode is on: the schema meets OpenAI's strict subset. */
  strict: boolean;
}

/** A `function_call` output item. */
export interface OpenAIResponsesToolCall {
  /** Always `'function_call'`. */
  type: 'function_call';
  /** The call's id, echoed in the output item. */
  call_id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as JSON text. */
  arguments: string;
}

/** One piece of a function call's output. */
export type OpenAIResponsesOutputPart =
  | {
      /** A text piece. */
      type: 'input_text';
      /** The text. */
      text: string;
    }
  | {
      /** An image piece. */
      type: 'input_image';
      /** The image as a `data:` URL. */
      image_url: string;
      /** Always `'auto'`. */
      detail: 'auto';
    };

/** The `function_call_output` input item answering one call (assignable to ResponseInputItem.FunctionCallOutput). */
export interface OpenAIResponsesToolOutput {
  /** Always `'function_call_output'`. */
  type: 'function_call_output';
  /** The `call_id` of the call it answers. */
  call_id: string;
  /** The result as text and image pieces. */
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
