/**
 * executeToolCall: a model's tool call in its provider's shape, run against a source and answered
 * with the provider's tool-result block. Problems the model can fix come back as error results it
 * can read (see run-call.ts); only a host's own mistakes throw (an unknown provider, a bad budget).
 */
import { adapterFor, type ToolCallOf, type ToolResultOf } from './adapters.js';
import { type ExecuteOptions, runToolCall } from './run-call.js';
import type { Provider, ToolSource } from './types.js';

/**
 * Runs the model's `call` (OpenAI `tool_calls` entry, Responses `function_call`, Anthropic
 * `tool_use`, Gemini `functionCall`, AI SDK tool call) on `source`: the arguments are read, the
 * nulls strict mode made the model send for omitted optionals dropped, checked against the tool's
 * original input schema, and the call routed by name; the result is filtered by audience, kept
 * within the budget (`maxResultBytes`, default 65,536, or `maxResultTokens`) and returned as the
 * provider's result block. Throws TypeError for an unknown provider, RangeError for a bad budget.
 */
export async function executeToolCall<P extends Provider>(
  provider: P,
  source: ToolSource,
  call: ToolCallOf[P],
  options: ExecuteOptions = {},
): Promise<ToolResultOf[P]> {
  const adapter = adapterFor(provider);
  const parsed = adapter.parseCall(call);
  const rendered = await runToolCall(source, parsed, adapter.media, options);
  return adapter.resultBlock(parsed, rendered) as ToolResultOf[P];
}
