/**
 * The Vercel AI SDK (`ai` v5, the version tested): tool calls as `{ toolCallId, toolName, input }`, results
 * as `tool-result` parts whose output is text, content with media (`type: "media"`), or error text
 * (https://ai-sdk.dev/docs/reference/ai-sdk-core/tool). The `ai` package itself is only loaded by
 * toolsFor('ai-sdk') (tools-for-ai-sdk.ts); this module needs nothing from it.
 */
import type { RenderedResult } from '../types.js';
import { joinedText, type ProviderAdapter, valueCall } from './adapter.js';

/** A tool call as the AI SDK gives it (`ToolCallPart`, a step's `toolCalls` entries). */
export interface AiSdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What the model is shown of a tool's output (the AI SDK's tool result output). */
export type AiSdkToolOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | {
      type: 'content';
      value: Array<{ type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string }>;
    };

/** A `tool-result` part answering one call (for a `role: "tool"` model message). */
export interface AiSdkToolResult {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiSdkToolOutput;
}

/** The rendered result as the AI SDK's tool output. */
export function toAiSdkOutput(result: RenderedResult): AiSdkToolOutput {
  if (result.isError) return { type: 'error-text', value: joinedText(result.parts) };
  if (result.parts.every((part) => part.type === 'text'))
    return { type: 'text', value: joinedText(result.parts) };
  return {
    type: 'content',
    value: result.parts.map((part) =>
      part.type === 'text'
        ? { type: 'text', text: part.text }
        : { type: 'media', data: part.data, mediaType: part.mimeType },
    ),
  };
}

/** The AI SDK (definitions come from toolsFor, which needs the `ai` package). */
export const aiSdk: ProviderAdapter<never, AiSdkToolCall, AiSdkToolResult> = {
  media: { image: (mimeType) => mimeType.startsWith('image/'), audio: () => false },
  define() {
    throw new Error("AI SDK tools are built by toolsFor('ai-sdk', ...), which loads the `ai` package");
  },
  parseCall: (call) => valueCall(call, 'toolCallId', 'toolName', 'input'),
  resultBlock(call, result) {
    return { type: 'tool-result', toolCallId: call.id, toolName: call.name, output: toAiSdkOutput(result) };
  },
};
