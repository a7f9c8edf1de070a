/** The provider modules by name, and the per-provider types of definitions, calls and result blocks. */
import type { ProviderAdapter } from './providers/adapter.js';
import { type AiSdkToolCall, type AiSdkToolResult, aiSdk } from './providers/ai-sdk.js';
import {
  type AnthropicTool,
  type AnthropicToolResult,
  type AnthropicToolUse,
  anthropic,
} from './providers/anthropic.js';
import {
  type GeminiFunctionCall,
  type GeminiFunctionDeclaration,
  type GeminiFunctionResponsePart,
  gemini,
} from './providers/gemini.js';
import {
  type OpenAIChatTool,
  type OpenAIChatToolCall,
  type OpenAIChatToolMessage,
  openaiChat,
} from './providers/openai.js';
import {
  type OpenAIResponsesTool,
  type OpenAIResponsesToolCall,
  type OpenAIResponsesToolOutput,
  openaiResponses,
} from './providers/openai-responses.js';
import type { AiSdkTools } from './tools-for-ai-sdk.js';
import type { Provider } from './types.js';

/** What toolsFor returns per provider. */
export interface ToolsOf {
  /** OpenAI Chat Completions `tools` entries. */
  openai: OpenAIChatTool[];
  /** OpenAI Responses API `tools` entries. */
  'openai-responses': OpenAIResponsesTool[];
  /** Anthropic Messages API `tools` entries. */
  anthropic: AnthropicTool[];
  /** Gemini `functionDeclarations`. */
  gemini: GeminiFunctionDeclaration[];
  /** An AI SDK `tools` object, keyed by tool name. */
  'ai-sdk': AiSdkTools;
}

/** The model's tool call executeToolCall takes per provider. */
export interface ToolCallOf {
  /** One entry of an assistant message's `tool_calls`. */
  openai: OpenAIChatToolCall;
  /** A `function_call` output item. */
  'openai-responses': OpenAIResponsesToolCall;
  /** A `tool_use` content block. */
  anthropic: AnthropicToolUse;
  /** A `functionCall` part. */
  gemini: GeminiFunctionCall;
  /** An AI SDK tool call. */
  'ai-sdk': AiSdkToolCall;
}

/** The tool-result block executeToolCall returns per provider. */
export interface ToolResultOf {
  /** A `role: 'tool'` message. */
  openai: OpenAIChatToolMessage;
  /** A `function_call_output` input item. */
  'openai-responses': OpenAIResponsesToolOutput;
  /** A `tool_result` content block. */
  anthropic: AnthropicToolResult;
  /** A `functionResponse` part. */
  gemini: GeminiFunctionResponsePart;
  /** An AI SDK tool result. */
  'ai-sdk': AiSdkToolResult;
}

const ADAPTERS = {
  openai: openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
  'ai-sdk': aiSdk,
} as const;

/** The module of `provider`. Throws TypeError naming the providers for an unknown one. */
export function adapterFor(provider: Provider): ProviderAdapter<unknown, unknown, unknown> {
  if (!Object.hasOwn(ADAPTERS, provider)) {
    throw new TypeError(
      `unknown provider ${JSON.stringify(provider)}; use one of ${Object.keys(ADAPTERS).join(', ')}`,
    );
  }
  return ADAPTERS[provider] as ProviderAdapter<unknown, unknown, unknown>;
}
