import type { ClientPool } from '../index.js';
import { callTool, printToolResult } from './call-tool.js';
import type { CliArguments } from './cli-arguments.js';
import type { Output } from './output.js';
import type { Stopper } from './stop.js';
import { argsOption } from './tool-arguments.js';
import { closestName } from './undeclared-arguments.js';
import { UsageProblem } from './usage-problem.js';

/**
 * `call <name> --config <file>`: a tool by the name `tools --config` prints (`<server>__<tool>`),
 * routed by the pool to its server, arguments typed and checked as for one server.
 */
export async function callPoolTool(
  pool: ClientPool,
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
): Promise<number> {
  const name = cli.target!;
  const { tools } = await stopper.race(pool.listTools());
  const base = await argsOption(cli.argsJson);
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) {
    const near = closestName(
      name,
      tools.map((candidate) => candidate.name),
    );
    const down = pool
      .status()
      .filter((s) => s.state !== 'ready' && s.state !== 'disabled')
      .map((s) => `${s.name} (${s.state})`);
    throw new UsageProblem(
      `${cli.config} has no tool ${JSON.stringify(name)}${near ? `; did you mean ${near}?` : ''} ` +
        `(conduit-mcp tools --config ${cli.config} lists them${down.length ? `; not ready: ${down.join(', ')}` : ''})`,
    );
  }
  const host = {
    find: async () => tool,
    call: (params: { name: string; arguments: Record<string, unknown> }, options: object) =>
      pool.callTool(params, options),
  };
  const result = await callTool(host, cli, output, stopper, name, base, cli.args);
  return printToolResult(cli, output, result);
}
