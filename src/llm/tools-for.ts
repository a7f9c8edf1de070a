/**
 * toolsFor: a source's tools as one provider's tool definitions, each schema rewritten for the
 * provider and checked against its documented subset; a tool that cannot be represented is left
 * out, with a warning naming the tool, the provider and why.
 */
import { adapterFor, type ToolsOf } from './adapters.js';
import { convertTool } from './convert.js';
import type { ExecuteOptions } from './run-call.js';
import { CALL_TOOL_NAME, isPool, SEARCH_MODE_TOOLS } from './search-mode.js';
import { listSourceTools } from './source.js';
import { aiSdkTool } from './tools-for-ai-sdk.js';
import type { LlmWarning, Provider, ToolSource } from './types.js';

/** Options of toolsFor. */
export interface ToolsForOptions {
  /** OpenAI: offer `strict: true` where a schema allows it (else the tool goes without). Default true. */
  readonly strict?: boolean;
  /**
   * Receives each tool left out or offered without strict mode. Default: `process.emitWarning`
   * with code `CONDUIT_MCP_LLM_TOOL`.
   */
  readonly onWarning?: (warning: LlmWarning) => void;
  /** Only the tools this accepts (by the source's names). Default: every tool (a pool's held by its `pinning` policy left out). */
  readonly filter?: (name: string) => boolean;
  /** 'ai-sdk' only: the options of each tool's `execute` (result budget, spill, request options). */
  readonly execute?: ExecuteOptions;
  /**
   * A ClientPool only: offer two tools instead of every tool, `search_tools` (finds tools by what
   * they do: names, descriptions, input schemas) and `call_tool` (calls a found tool by name);
   * executeToolCall runs both. Lazy servers not started yet are searched from the pool's manifest.
   * @defaultValue false
   */
  readonly search?: boolean;
}

/**
 * The tools of `source` (a Client or a ClientPool, listed now) as `provider` takes them: OpenAI
 * Chat Completions or Responses function tools, Anthropic Messages tools, Gemini function
 * declarations, or an AI SDK `tools` object (needs the `ai` package). Rejects as `listTools` does
 * (e.g. NameCollisionError for a pool), or when 'ai-sdk' is asked for and `ai` is not installed.
 * With `search: true`, the two tools of search mode instead (see {@link ToolsForOptions.search}).
 *
 * @throws `TypeError` (rejects) when `provider` is not one of {@link PROVIDERS}, or `search` is asked of a Client.
 */
export async function toolsFor<P extends Provider>(
  provider: P,
  source: ToolSource,
  options: ToolsForOptions = {},
): Promise<ToolsOf[P]> {
  const adapter = adapterFor(provider);
  const warn = options.onWarning ?? emitWarning;
  if (options.search === true && !isPool(source))
    throw new TypeError('toolsFor(..., { search: true }) needs a ClientPool: search mode searches its tools');
  const tools =
    options.search === true
      ? SEARCH_MODE_TOOLS
      : (await listSourceTools(source)).filter(
          (tool) => (options.filter?.(tool.name) ?? true) && trusted(source, tool.name),
        );
  const definitions: unknown[] = [];
  const aiTools: Record<string, unknown> = {};
  for (const tool of tools) {
    // call_tool's free-form `arguments` object can never be strict: no note about it.
    const converted = convertTool(provider, tool, tool.name === CALL_TOOL_NAME ? { strict: false } : options);
    if ('error' in converted) {
      warn({ tool: tool.name, provider, leftOut: true, reason: converted.error });
      continue;
    }
    if (converted.note !== undefined)
      warn({ tool: tool.name, provider, leftOut: false, reason: converted.note });
    if (provider === 'ai-sdk') {
      aiTools[tool.name] = await aiSdkTool(
        source,
        tool.name,
        tool.description ?? tool.title,
        converted.parameters ?? { type: 'object' },
        options.execute ?? {},
      );
    } else {
      definitions.push(adapter.define(tool, converted.parameters, converted.strict));
    }
  }
  return (provider === 'ai-sdk' ? aiTools : definitions) as ToolsOf[P];
}

/** A pool's tool held by its pinning policy is not offered. */
function trusted(source: ToolSource, name: string): boolean {
  return !isPool(source) || source.toolTrust(name) === 'trusted';
}

function emitWarning(warning: LlmWarning): void {
  const what = warning.leftOut ? 'left out' : 'changed';
  process.emitWarning(`${warning.provider}: tool "${warning.tool}" ${what}: ${warning.reason}`, {
    code: 'CONDUIT_MCP_LLM_TOOL',
  });
}
