import { ClientPool, type ServerStatus } from '../index.js';
import { callTool, printToolResult } from './call-tool.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { loadCliConfig } from './config.js';
import { configInputs } from './config-input.js';
import { EXIT, UsageProblem } from './exit-codes.js';
import { printSearch, printToolDefinitions } from './llm-commands.js';
import { poolMessage } from './messages.js';
import type { Output } from './output.js';
import { oneLine, toolsTable } from './render.js';
import type { TextPolicy } from './sanitize.js';
import type { Stopper } from './stop.js';
import { table } from './table.js';
import { configDirectoryOf, tokenStoreFor } from './token-files.js';
import { argsOption } from './tool-arguments.js';
import { closestName } from './undeclared-arguments.js';

/** `servers`, and `tools`/`call` with `--config` but no `--server`: every server of the file, as one pool. */
export function usesPool(cli: CliArguments): boolean {
  return (
    cli.command === 'servers' ||
    cli.command === 'search' ||
    ((cli.command === 'tools' || cli.command === 'call') &&
      cli.config !== undefined &&
      cli.server === undefined)
  );
}

/**
 * Runs a whole-file command. A stop (Ctrl-C, a signal, stdout closed) abandons the starts still
 * pending and the lists still asked for: leaving this function disposes of the pool, which closes
 * every server (started or not), so the exit follows the signal instead of the slowest start.
 */
export async function runPoolCommand(
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  environment: Environment,
): Promise<number> {
  await using pool = openPool(cli, output, configDirectoryOf(environment));
  if (cli.command === 'search') return await stopper.race(printSearch(pool, cli, output));
  await stopper.race(pool.connect());
  if (cli.command === 'call') {
    return await callPoolTool(pool, cli, output, stopper);
  }
  const print = (human: () => string, json: unknown) =>
    output.out(cli.json ? JSON.stringify(json, null, 2) : human());
  if (cli.command === 'servers') {
    await stopper.race(pool.listTools().catch(() => undefined)); // fills the tool counts; a collision is not this command's concern
    const status = pool.status();
    print(() => statusTable(output.policy, status, output.width), status.map(statusJson));
    consentHints(cli, output, status);
    return status.every((s) => s.state === 'ready' || s.state === 'disabled') ? EXIT.ok : EXIT.serverDown;
  }
  if (cli.format !== undefined) return await stopper.race(printToolDefinitions(pool, cli.format, output));
  const { tools } = await stopper.race(pool.listTools());
  for (const s of pool.status()) {
    if (s.state !== 'ready' && s.state !== 'disabled' && s.state !== 'needs_auth') {
      output.err(
        `conduit-mcp: ${s.name} is ${s.state}: ${output.policy.line(poolMessage(s.error?.message ?? 'no error', s.name))}`,
      );
    }
  }
  consentHints(cli, output, pool.status());
  print(
    () => toolsTable(output.policy, tools, output.width),
    tools.map(({ name, server, originalName, description, inputSchema }) => ({
      name,
      server,
      originalName,
      description,
      inputSchema,
    })),
  );
  return EXIT.ok;
}

/** The config file's servers as one pool (nothing started yet); the file's own problems are reported once. */
function openPool(cli: CliArguments, output: Output, tokenDirectory: string): ClientPool {
  const file = cli.config!;
  loadCliConfig(file, output.err);
  return ClientPool.fromConfigFile(file, {
    input: configInputs(file),
    // The token files `--server NAME` logs in to (and `logout` clears), so that a server
    // authorized there is ready here. A listing never waits for a browser: see consentHints.
    oauth: { store: (_server, url) => tokenStoreFor(url, tokenDirectory) },
    client: { requestTimeout: cli.timeout, reconnect: { maxReconnects: 0 }, protocol: cli.protocol },
    startTimeout: cli.timeout,
  });
}

/** How to authorize each server that waits for a user's consent, in the command's own words. */
function consentHints(cli: CliArguments, output: Output, status: ServerStatus[]): void {
  for (const s of status) {
    if (s.state !== 'needs_auth') continue;
    const name = output.policy.line(s.name);
    output.err(
      `conduit-mcp: ${name} needs your authorization: run conduit-mcp tools --config ${output.policy.line(quoteArgument(cli.config!))} --server ${quoteArgument(name)} to log in (it prints the URL to open), then run this again`,
    );
  }
}

/** An argument as a POSIX shell reads it back: quoted unless it holds only safe characters. */
function quoteArgument(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The ERROR column is whole (its end says what to do); on a terminal it wraps to fit. */
function statusTable(policy: TextPolicy, status: ServerStatus[], width: number | undefined): string {
  return table(
    ['SERVER', 'STATE', 'ERA', 'TOOLS', 'ERROR'],
    status.map((s) => [
      oneLine(policy, s.name, Number.POSITIVE_INFINITY),
      s.state,
      s.era ?? '-',
      s.toolCount === undefined ? '-' : String(s.toolCount),
      s.state === 'needs_auth'
        ? 'waits for your consent (see below)'
        : oneLine(policy, poolMessage(s.error?.message ?? '', s.name), Number.POSITIVE_INFINITY),
    ]),
    { width, wrap: [4] },
  );
}

function statusJson(s: ServerStatus) {
  return {
    name: s.name,
    state: s.state,
    era: s.era ?? null,
    toolCount: s.toolCount ?? null,
    pid: s.pid ?? null,
    url: s.url ?? null,
    error: s.error?.message ?? null,
    restarts: s.restarts,
  };
}

/**
 * `call <name> --config <file>`: a tool by the name `tools --config` prints (`<server>__<tool>`),
 * routed by the pool to its server, arguments typed and checked as for one server.
 */
async function callPoolTool(
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
