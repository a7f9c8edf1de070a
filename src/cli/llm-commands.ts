/**
 * `tools --format <provider>` (the tool definitions as a model provider takes them) and `search
 * <query> --config <file>` (the best matches across the file's servers). The definitions come
 * from `conduit-mcp/llm`, the package's public subpath, loaded only by these commands.
 */
import type { Client, ClientPool } from '../index.js';
import type { CliArguments, CommandName } from './cli-arguments.js';
import { EXIT, UsageProblem } from './exit-codes.js';
import type { OptionValues } from './option-table.js';
import type { Output } from './output.js';
import { table } from './table.js';

/** The providers `--format` takes (conduit-mcp/llm's PROVIDERS). */
export const FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk'] as const;
/** One of FORMATS. */
export type ToolFormat = (typeof FORMATS)[number];

/** --format belongs to tools, --limit to search. */
export function checkLlmOptions(command: CommandName, values: OptionValues): void {
  if (values.format !== undefined && command !== 'tools') {
    throw new UsageProblem('--format is for tools: conduit-mcp tools --format openai --config <file>');
  }
  if (values.limit !== undefined && command !== 'search') {
    throw new UsageProblem('--limit is for search: conduit-mcp search <query> --limit 5 --config <file>');
  }
}

/** Prints the source's tools as `format`'s definitions (JSON); a tool left out is named on stderr. */
export async function printToolDefinitions(
  source: Client | ClientPool,
  format: ToolFormat,
  output: Output,
): Promise<number> {
  const llm = await import('../llm/index.js');
  const onWarning = (warning: { tool: string; leftOut: boolean; reason: string }) =>
    output.err(
      `conduit-mcp: ${format}: tool ${output.policy.line(warning.tool)} ${warning.leftOut ? 'left out' : 'changed'}: ${output.policy.line(warning.reason)}`,
    );
  let definitions: unknown;
  if (format === 'ai-sdk') {
    // The AI SDK's tools hold functions; what it takes from a definition is this.
    const { tools } = await source.listTools();
    const entries: Array<[string, unknown]> = [];
    for (const tool of tools) {
      const converted = llm.convertTool('ai-sdk', tool);
      if ('error' in converted) {
        onWarning({ tool: tool.name, leftOut: true, reason: converted.error });
        continue;
      }
      const description = tool.description ?? tool.title;
      entries.push([
        tool.name,
        {
          ...(description !== undefined && { description }),
          inputSchema: converted.parameters ?? { type: 'object' },
        },
      ]);
    }
    definitions = Object.fromEntries(entries);
  } else {
    definitions = await llm.toolsFor(format, source, { onWarning });
  }
  output.out(JSON.stringify(definitions, null, 2));
  return EXIT.ok;
}

/** Prints the best matches of the query across the pool's servers (lazy ones from the manifest). */
export async function printSearch(pool: ClientPool, cli: CliArguments, output: Output): Promise<number> {
  const matches = await pool.searchTools(cli.target!, { limit: cli.limit ?? 10 });
  if (cli.json) {
    output.out(JSON.stringify(matches, null, 2));
    return EXIT.ok;
  }
  if (matches.length === 0) {
    output.err(`conduit-mcp: no tool matches ${JSON.stringify(cli.target)}`);
    return EXIT.ok;
  }
  const line = output.policy.line;
  output.out(
    table(
      ['TOOL', 'SERVER', 'SCORE', 'DESCRIPTION'],
      matches.map((match) => [
        line(match.name),
        line(match.server) + (match.from === 'manifest' ? ' (not started)' : ''),
        match.score.toFixed(2),
        line(match.description ?? match.title ?? ''),
      ]),
      { width: output.width, wrap: [3] },
    ),
  );
  return EXIT.ok;
}
