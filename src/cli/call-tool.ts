import type { CallToolResult, Client, Progress, RequestOptions, Tool } from '../index.js';
import type { CliArguments } from './cli-arguments.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { renderToolResult } from './render.js';
import { saveBinaries } from './save.js';
import { requestOptions } from './server-client.js';
import type { Stopper } from './stop.js';
import { toolArguments } from './tool-arguments.js';
import { warnUndeclaredArguments } from './undeclared-arguments.js';

/** Where a tool is found and called: one server's Client, or a config file's pool. */
interface ToolHost {
  /** The tool's description (its input schema), or undefined when the server lists no such tool. */
  find: (name: string, options: RequestOptions) => Promise<Tool | undefined>;
  call: (
    params: { name: string; arguments: Record<string, unknown> },
    options: RequestOptions,
  ) => Promise<CallToolResult>;
}

/**
 * The live progress line on a terminal (stderr). It paints nothing once `signal` has aborted: a
 * cancelled call's late progress must not cover the prompt that followed it.
 */
function progressPainter(output: Output, signal: AbortSignal | undefined) {
  let shown = false;
  const paint = (progress: Progress) => {
    if (!output.errIsTty || signal?.aborted) return;
    shown = true;
    const total = progress.total !== undefined ? `/${progress.total}` : '';
    const message = output.policy.line(progress.message ?? '');
    output.err(`\r\u001b[2K${progress.progress}${total} ${message}`.trimEnd());
  };
  const clear = () => {
    if (shown) output.err('\r\u001b[2K');
    shown = false;
  };
  signal?.addEventListener('abort', clear, { once: true });
  return { paint, clear };
}

/**
 * Calls a tool with its arguments typed by (and checked against) the tool's input schema.
 * `signal` cancels this call alone (the shell's Ctrl-C); the run's stop cancels it too.
 */
export async function callTool(
  host: ToolHost,
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  name: string,
  baseArguments: Record<string, unknown>,
  args: ReadonlyArray<[string, string]>,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const tool = await host.find(name, requestOptions(cli, stopper, signal));
  const toolArgs = toolArguments(baseArguments, args, tool, cli.validate);
  if (tool) warnUndeclaredArguments(tool, Object.keys(toolArgs), output, cli.validate);
  if (tool && cli.validate) {
    const { checkArguments } = await import('./check-arguments.js');
    await checkArguments(tool, toolArgs, output.err);
  }
  const progress = progressPainter(output, signal);
  try {
    return await host.call(
      { name, arguments: toolArgs },
      requestOptions(cli, stopper, signal, cli.json ? () => {} : progress.paint),
    );
  } finally {
    progress.clear();
  }
}

export function printToolResult(cli: CliArguments, output: Output, result: CallToolResult): number {
  const saved = cli.outputDir ? saveBinaries(cli.outputDir, result.content ?? []) : new Map();
  output.out(
    cli.json
      ? JSON.stringify(result, null, 2)
      : renderToolResult(output.policy, result, { structured: cli.structured, saved }),
  );
  return result.isError ? EXIT.serverError : EXIT.ok;
}

/** One server's tools, looked up in its list (when it declares tools) and called on its Client. */
export function clientToolHost(client: Client): ToolHost {
  return {
    find: async (name, options) =>
      client.serverCapabilities?.tools
        ? (await client.listTools(undefined, options)).tools.find((tool) => tool.name === name)
        : undefined,
    call: (params, options) => client.callTool(params, options),
  };
}
