/**
 * `conduit-mcp/llm`: MCP tools as a language model's tools. Loaded only when imported; the `ai`
 * package (for 'ai-sdk') only when such tools are built.
 *
 * @packageDocumentation
 * @module conduit-mcp/llm
 */

export {
  buildToolIndex,
  canonicalJson,
  canonicalTool,
  FIELD_WEIGHTS,
  FINGERPRINT_FIELDS,
  findHiddenCharacters,
  findHiddenInTool,
  type HiddenCharacterKind,
  type HiddenCharacters,
  type SearchableTool,
  type ToolIndex,
  type ToolMatch,
  tokenize,
  toolFingerprint,
} from '../index.js';
export type { ToolCallOf, ToolResultOf, ToolsOf } from './adapters.js';
export {
  type BudgetOptions,
  BYTES_PER_TOKEN,
  DEFAULT_MAX_RESULT_BYTES,
  fileSpill,
  type SpilledResult,
  type SpillHandler,
} from './budget.js';
export { checkGemini } from './checkers/gemini.js';
export { checkJsonSchemaObject } from './checkers/json-schema-object.js';
export { checkOpenAIStrict, OPENAI_STRICT_LIMITS } from './checkers/openai-strict.js';
export { type Converted, type ConvertOptions, convertTool } from './convert.js';
export type { AiSdkToolCall, AiSdkToolOutput, AiSdkToolResult } from './providers/ai-sdk.js';
export type {
  AnthropicResultContent,
  AnthropicTool,
  AnthropicToolResult,
  AnthropicToolUse,
} from './providers/anthropic.js';
export type {
  GeminiFunctionCall,
  GeminiFunctionDeclaration,
  GeminiFunctionResponsePart,
} from './providers/gemini.js';
export type { OpenAIChatTool, OpenAIChatToolCall, OpenAIChatToolMessage } from './providers/openai.js';
export type {
  OpenAIResponsesOutputPart,
  OpenAIResponsesTool,
  OpenAIResponsesToolCall,
  OpenAIResponsesToolOutput,
} from './providers/openai-responses.js';
export { type ExecuteOptions, executeToolCall } from './run-call.js';
export type { JsonSchema, SchemaObject } from './schema/json-schema-node.js';
export { restoreArguments } from './schema/restore-arguments.js';
export { CALL_TOOL_NAME, SEARCH_MODE_TOOLS, SEARCH_TOOL_NAME } from './search-mode.js';
export { type ToolsForOptions, toolsFor } from './tools-for.js';
export type { AiSdkTool, AiSdkTools } from './tools-for-ai-sdk.js';
export {
  type LlmWarning,
  PROVIDERS,
  type Provider,
  type RenderedPart,
  type RenderedResult,
  type ToolSource,
} from './types.js';
