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
  /** The call's id. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The arguments, as an object. */
  input: unknown;
}

/** What the model is shown of a tool's output (the AI SDK's tool result output). */
export type AiSdkToolOutput =
  | {
      /** Text only. */
      type: 'text';
      /** The text parts, joined. */
      value: string;
    }
  | {
      /** The tool failed. */
      type: 'error-text';
      /** The text parts, joined. */
      value: string;
    }
  | {
      /** Text and media. */
      type: 'content';
      /** The parts, in order. */
      value: Array<
        | {
            /** A text part. */
            type: 'text';
            /** The text. */
            text: string;
          }
        | {
            /** A media part. */
            type: 'media';
            /** Base64. */
            data: string;
            /** Its media type. */
            mediaType: string;
          }
      >;
    };

/** A `tool-result` part answering one call (for a `role: "tool"` model message). */
export interface AiSdkToolResult {
  /** Always `'tool-result'`. */
  type: 'tool-result';
  /** The `toolCallId` of the call it answers. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The result. */
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
