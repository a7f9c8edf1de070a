/**
 * AI SDK tools built with the SDK's own `tool()` and `jsonSchema()`: the `ai` package (an optional
 * peer dependency) is imported here, on the first toolsFor('ai-sdk', ...) only. Each tool's
 * `execute` runs the call through runToolCall (validation, routing, budget) and `toModelOutput`
 * shows the model text, media or error text.
 */

import { aiSdk, toAiSdkOutput } from './providers/ai-sdk.js';
import { type ExecuteOptions, runToolCall } from './run-call.js';
import type { SchemaObject } from './schema/json-schema-node.js';
import type { RenderedResult, ToolSource } from './types.js';

/**
 * One AI SDK tool as toolsFor builds it with the `ai` package's own `tool()`: pass a record of them
 * as `tools` to generateText or streamText. Typed by its shape, not by `ai`'s `Tool` type, so that
 * these declarations compile where `ai` (an optional peer dependency) is not installed; the members
 * typed `any` are `ai`'s own types, which cannot be named here without it.
 */
export interface AiSdkTool {
  /** The tool's description. */
  readonly description?: string;
  /** The input schema, as `ai`'s `jsonSchema()` wraps it. */
  // biome-ignore lint/suspicious/noExplicitAny: ai's FlexibleSchema, not nameable without ai installed
  readonly inputSchema: any;
  /** Runs the call on the server (validation, routing, budget) and resolves with the rendered result. */
  // biome-ignore lint/suspicious/noExplicitAny: ai's ToolCallOptions, likewise
  readonly execute?: (input: Record<string, unknown>, options: any) => Promise<RenderedResult>;
  /** Turns the rendered result (v5; v6 and v7: `{ output }`) into what the model is shown (text, media, or error text). */
  // biome-ignore lint/suspicious/noExplicitAny: ai's tool result output, likewise
  readonly toModelOutput?: (given: any) => any;
}

/** AI SDK tools by name: pass as `tools` to generateText or streamText. */
export type AiSdkTools = Record<string, AiSdkTool>;

type AiModule = {
  tool: (definition: object) => unknown;
  jsonSchema: (schema: object) => unknown;
};

let loaded: Promise<AiModule> | undefined;

async function loadAi(): Promise<AiModule> {
  loaded ??= import('ai').then(
    (module) => module as unknown as AiModule,
    (error: unknown) => {
      loaded = undefined;
      throw new Error(`toolsFor('ai-sdk') needs the \`ai\` package (v5, v6 or v7): npm install ai`, {
        cause: error,
      });
    },
  );
  return loaded;
}

/**
 * What the model is shown of a tool's result: `ai` v5 passes the result itself, v6 and v7 an
 * object holding it as `output` (with the call's id and input).
 */
function modelOutput(given: RenderedResult | { output: RenderedResult }) {
  return toAiSdkOutput('parts' in given ? given : given.output);
}

/** One converted tool as an AI SDK tool. */
export async function aiSdkTool(
  source: ToolSource,
  name: string,
  description: string | undefined,
  parameters: SchemaObject,
  options: ExecuteOptions,
): Promise<AiSdkTool> {
  const { tool, jsonSchema } = await loadAi();
  return tool({
    ...(description !== undefined && { description }),
    inputSchema: jsonSchema(parameters),
    execute: (input: Record<string, unknown>, call: { toolCallId: string; abortSignal?: AbortSignal }) =>
      runToolCall(
        source,
        aiSdk.parseCall({ toolCallId: call.toolCallId, toolName: name, input }),
        aiSdk.media,
        call.abortSignal
          ? { ...options, requestOptions: { ...options.requestOptions, signal: call.abortSignal } }
          : options,
      ),
    toModelOutput: modelOutput,
  }) as unknown as AiSdkTool;
}
