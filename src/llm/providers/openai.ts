/**
 * OpenAI Chat Completions: function tools (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools),
 * tool calls with JSON-text arguments, and `role: "tool"` messages, which hold text only: media is
 * described, and a failed tool is marked in the text (the message has no error flag).
 */
import type { SchemaObject } from '../schema/json-schema-node.js';
import { field, joinedText, type ProviderAdapter, parseJsonArguments } from './adapter.js';

/** A Chat Completions function tool (assignable to the `openai` package's ChatCompletionFunctionTool). */
export interface OpenAIChatTool {
  /** Always `'function'`. */
  type: 'function';
  /** The function. */
  function: {
    /** The tool's name. */
    name: string;
    /** The tool's description, or its title when it has none. */
    description?: string;
    /** The converted input schema. */
    parameters?: SchemaObject;
    /** Whether strict mode is on: the schema meets OpenAI's strict subset. */
    strict?: boolean;
  };
}

/** A tool call from a Chat Completions assistant message. */
export interface OpenAIChatToolCall {
  /** The call's id, echoed as `tool_call_id`. */
  id: string;
  /** Always `'function'`. */
  type: 'function';
  /** The function called. */
  function: {
    /** The tool's name. */
    name: string;
    /** The arguments, as JSON text. */
    arguments: string;
  };
}

/** The `role: "tool"` message answering one call (assignable to ChatCompletionToolMessageParam). */
export interface OpenAIChatToolMessage {
  /** Always `'tool'`. */
  role: 'tool';
  /** The `id` of the call it answers. */
  tool_call_id: string;
  /** The result as text (media described, a failure marked). */
  content: string;
}

/** The text a failed tool's result starts with, where a provider has no error flag. */
export const ERROR_PREFIX = 'Error: the tool reported a failure.\n';

/** Chat Completions. */
export const openaiChat: ProviderAdapter<OpenAIChatTool, OpenAIChatToolCall, OpenAIChatToolMessage> = {
  media: { image: () => false, audio: () => false },
  define(tool, parameters, strict) {
    const description = tool.description ?? tool.title;
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(description !== undefined && { description }),
        parameters: parameters ?? { type: 'object', properties: {} },
        strict,
      },
    };
  },
  parseCall(call) {
    const fn = (call as { function?: unknown } | null)?.function;
    return {
      id: field(call, 'id'),
      name: field(fn, 'name'),
      arguments: parseJsonArguments(field(fn, 'arguments')),
    };
  },
  resultBlock(call, result) {
    const text = joinedText(result.parts);
    return { role: 'tool', tool_call_id: call.id, content: result.isError ? `${ERROR_PREFIX}${text}` : text };
  },
};
