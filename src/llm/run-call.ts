/**
 * executeToolCall: a model's tool call in its provider's shape, run against a source and answered
 * with the provider's tool-result block, never throwing into the host's loop: unreadable
 * arguments, an unknown tool, arguments the tool's original input schema refuses, a failed or lost
 * call: each becomes an error result the model can read and act on. Only a host's own mistakes
 * throw (an unknown provider, a bad budget).
 */
import type { RequestOptions, Tool } from '../index.js';
import { checkSchema } from '../protocol/json-schema.js';
import { describeSchemaErrors } from '../protocol/schema-validation.js';
import { adapterFor, type ToolCallOf, type ToolResultOf } from './adapters.js';
import { applyBudget, type BudgetOptions, budgetBytes } from './budget.js';
import { renderResult } from './results.js';
import { inlineRefs } from './schema/inline-refs.js';
import type { JsonSchema } from './schema/json-schema-node.js';
import { restoreArguments } from './schema/restore-arguments.js';
import {
  CALL_TOOL_NAME,
  foundToolCall,
  isPool,
  isSearchModeCall,
  runSearch,
  SEARCH_TOOL_NAME,
} from './search-mode.js';
import { findTool, knownToolNames } from './source.js';
import type { MediaSupport, ParsedCall, Provider, RenderedResult, ToolSource } from './types.js';

/** Options of executeToolCall and of the AI SDK tools' `execute`. */
export interface ExecuteOptions extends BudgetOptions {
  /** Passed to the call: `timeout` (ms), `signal`, `onProgress`, ... */
  readonly requestOptions?: RequestOptions;
}

const SHOWN_NAMES = 30;

/**
 * Runs the model's `call` (OpenAI `tool_calls` entry, Responses `function_call`, Anthropic
 * `tool_use`, Gemini `functionCall`, AI SDK tool call) on `source`: the arguments are read, the
 * nulls strict mode made the model send for omitted optionals dropped, checked against the tool's
 * original input schema, and the call routed by name; the result is filtered by audience, kept
 * within the budget (`maxResultBytes`, default 65,536, or `maxResultTokens`) and returned as the
 * provider's result block. Throws TypeError for an unknown provider, RangeError for a bad budget.
 *
 * @throws `TypeError` (rejects) when `provider` is not one of {@link PROVIDERS}.
 * @throws `RangeError` (rejects) when `maxResultBytes` or `maxResultTokens` is not a positive integer.
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

const failed = (text: string): RenderedResult => ({ isError: true, parts: [{ type: 'text', text }] });

/**
 * Runs `call` against `source` and renders its result for a model with `media` support; search
 * mode's two tools are run here too. `known`: the tool as a search found it (its schema checks the
 * arguments without listing every server).
 */
export async function runToolCall(
  source: ToolSource,
  call: ParsedCall,
  media: MediaSupport,
  options: ExecuteOptions,
  known?: Tool,
): Promise<RenderedResult> {
  const maxBytes = budgetBytes(options);
  if ('error' in call.arguments)
    return failed(`Tool "${call.name}" was not called: ${call.arguments.error}.`);
  if (known === undefined && isPool(source) && isSearchModeCall(source, call.name)) {
    const args = call.arguments.value;
    if (call.name === SEARCH_TOOL_NAME) {
      try {
        return {
          isError: false,
          parts: [
            {
              type: 'text',
              text: await runSearch(source, args, (name) => source.toolTrust(name) === 'trusted'),
            },
          ],
        };
      } catch (error) {
        return failed(`${SEARCH_TOOL_NAME} failed: ${message(error)}`);
      }
    }
    const target = foundToolCall(source, call, args);
    if ('error' in target) return failed(`${CALL_TOOL_NAME} was not run: ${target.error}.`);
    if (isSearchModeCall(source, target.call.name))
      return failed(`${CALL_TOOL_NAME} calls the tools ${SEARCH_TOOL_NAME} finds, not itself.`);
    return runToolCall(source, target.call, media, options, target.tool);
  }
  let tool: Tool | undefined = known;
  try {
    tool ??= await findTool(source, call.name);
  } catch (error) {
    return failed(
      `Tool "${call.name}" was not called: its server's tools could not be listed (${message(error)}).`,
    );
  }
  if (tool === undefined) {
    const names = knownToolNames(source);
    const shown = names.slice(0, SHOWN_NAMES).join(', ') + (names.length > SHOWN_NAMES ? ', ...' : '');
    return failed(`There is no tool named "${call.name}". Tools available: ${shown || 'none'}.`);
  }
  const inlined = inlineRefs(tool.inputSchema as JsonSchema);
  const args = restoreArguments(
    'error' in inlined ? (tool.inputSchema as JsonSchema) : inlined.schema,
    call.arguments.value,
  );
  const check = await checkSchema(tool.inputSchema, args);
  if (check.valid === false) {
    return failed(
      `Tool "${call.name}" was not called: its arguments do not match its input schema: ${describeSchemaErrors(check).replace(/\.$/, '')}. ` +
        'Correct the arguments and call it again.',
    );
  }
  let result: Awaited<ReturnType<ToolSource['callTool']>>;
  try {
    result = await source.callTool(
      { name: call.name, arguments: args as Record<string, unknown> },
      options.requestOptions,
    );
  } catch (error) {
    return failed(`The call to tool "${call.name}" failed: ${message(error)}`);
  }
  const rendered = renderResult(result, media);
  const parts = await applyBudget(
    rendered.parts,
    maxBytes,
    { toolName: call.name, callId: call.id },
    options,
  );
  return { isError: rendered.isError, parts };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
