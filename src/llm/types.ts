/** The shapes the llm layer shares: providers, tool sources, warnings and rendered results. */
import type { Client, ClientPool } from '../index.js';

/** The model APIs toolsFor and executeToolCall speak. */
export type Provider = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'ai-sdk';

/** The providers, in a stable order. */
export const PROVIDERS: readonly Provider[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk'];

/** Where tools come from: one Client (the server's own names) or a ClientPool (provider-valid pool names). */
export type ToolSource = Client | ClientPool;

/** A tool left out of (or changed in) a provider's list, and why. */
export interface LlmWarning {
  /** The tool's name (its pool name for a ClientPool). */
  readonly tool: string;
  /** The provider the tools were converted for. */
  readonly provider: Provider;
  /** True when the tool is not offered to the model at all. */
  readonly leftOut: boolean;
  /** Why, in one sentence: `the schema uses allOf, which Gemini has no form for`. */
  readonly reason: string;
}

/** One piece of a tool result as the model will see it. */
export type RenderedPart =
  | {
      /** Text. */
      readonly type: 'text';
      /** The text. */
      readonly text: string;
    }
  | {
      /** Media the provider takes inside a tool result. */
      readonly type: 'image' | 'audio';
      /** Its media type. */
      readonly mimeType: string;
      /** Base64. */
      readonly data: string;
    };

/** A tool result rendered for a model: what to show and whether the tool failed. */
export interface RenderedResult {
  /** True when the tool failed (or the call could not be made): show it to the model as an error. */
  readonly isError: boolean;
  /** What the model is shown, in order. */
  readonly parts: readonly RenderedPart[];
}

/** Which media a provider takes inside a tool result, by MIME type. */
export interface MediaSupport {
  readonly image: (mimeType: string) => boolean;
  readonly audio: (mimeType: string) => boolean;
}

/** A model's tool call once read from its provider's shape. */
export interface ParsedCall {
  /** The provider's id of the call (tool_call_id, call_id, tool_use id, ...); '' when it has none. */
  readonly id: string;
  readonly name: string;
  /** The arguments, or why they could not be read (invalid JSON, not an object). */
  readonly arguments: { readonly value: Record<string, unknown> } | { readonly error: string };
}
