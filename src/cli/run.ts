import { type Client, ConnectionClosedError } from '../index.js';
import { callTool, clientToolHost, printToolResult } from './call-tool.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { FormTerminal } from './elicit.js';
import { EXIT, exitCodeFor, UsageProblem } from './exit-codes.js';
import { printToolDefinitions } from './llm-commands.js';
import type { Output } from './output.js';
import { runPoolCommand, usesPool } from './pool-commands.js';
import {
  promptsTable,
  renderPrompt,
  renderResource,
  renderServer,
  resourcesTable,
  templatesTable,
  toolsTable,
} from './render.js';
import { saveBinaries } from './save.js';
import { clientFor, connectWithin, requestOptions } from './server-client.js';
import type { Stopper } from './stop.js';
import { argsOption } from './tool-arguments.js';
import { startTrace, verboseLogging } from './verbose.js';

/** Signals the server's process group (its own, since it runs detached); gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals, platform: NodeJS.Platform): void {
  try {
    process.kill(platform === 'win32' ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}

/** Runs one CLI command against the server; returns the exit code. The client is always closed. */
export async function runCommand(
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  environment: Environment,
): Promise<number> {
  if (usesPool(cli)) return runPoolCommand(cli, output, stopper, environment);
  if (cli.command === 'serve') {
    const { serve } = await import('./serve.js');
    return serve(cli, output, stopper, environment);
  }
  if (cli.command === 'logout') {
    const { logout } = await import('./logout.js');
    return logout(cli, output, environment);
  }
  // Read before the server starts: a bad --args is a usage error that starts nothing.
  const baseArguments = await argsOption(cli.argsJson);
  // The shell's readline owns the terminal's input: a form borrows it while a command runs.
  const formTerminal = cli.command === 'shell' ? new FormTerminal() : undefined;
  const server = await clientFor(cli, output, environment, formTerminal);
  const client = server.client;
  if (cli.verbose) verboseLogging(client, output);
  if (cli.trace !== undefined) {
    try {
      startTrace(cli.trace, (line) => output.err(output.policy.line(line)));
    } catch (error) {
      throw new UsageProblem(`--trace ${cli.trace}: ${(error as Error).message}`);
    }
  }
  let gaveUp = false;
  try {
    await connectWithin(server, cli, stopper);
    return await stopper.race(
      dispatch(client, cli, output, stopper, environment, baseArguments, formTerminal),
    );
  } catch (error) {
    gaveUp = exitCodeFor(error) === EXIT.timeout;
    throw error;
  } finally {
    const pid = client.pid;
    await client.close();
    // A server that did not answer in time is presumed stuck: skip the stdin grace, so the exit
    // follows the deadline closely (the transport still escalates to SIGKILL after termGrace).
    if (gaveUp && pid !== undefined) signalGroup(pid, 'SIGTERM', environment.platform);
  }
}

async function dispatch(
  client: Client,
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  environment: Environment,
  baseArguments: Record<string, unknown>,
  formTerminal: FormTerminal | undefined,
): Promise<number> {
  const policy = output.policy;
  const print = (human: () => string, json: unknown) =>
    output.out(cli.json ? JSON.stringify(json, null, 2) : human());
  const has = (capability: string) => Boolean(client.serverCapabilities?.[capability]);
  const options = requestOptions(cli, stopper);
  switch (cli.command) {
    case 'inspect': {
      const tools = has('tools') ? (await client.listTools(undefined, options)).tools : [];
      const resources = has('resources') ? (await client.listResources(undefined, options)).resources : [];
      const templates = has('resources')
        ? (await client.listResourceTemplates(undefined, options)).resourceTemplates
        : [];
      const prompts = has('prompts') ? (await client.listPrompts(undefined, options)).prompts : [];
      print(
        () =>
          [
            renderServer(policy, client),
            '',
            `Tools (${tools.length})`,
            toolsTable(policy, tools, output.width),
            '',
            `Resources (${resources.length})`,
            resourcesTable(policy, resources),
            '',
            `Resource templates (${templates.length})`,
            templatesTable(policy, templates),
            '',
            `Prompts (${prompts.length})`,
            promptsTable(policy, prompts),
          ].join('\n'),
        {
          era: client.era,
          protocolVersion: client.protocolVersion,
          serverInfo: client.serverInfo,
          capabilities: client.serverCapabilities,
          instructions: client.instructions,
          tools,
          resources,
          resourceTemplates: templates,
          prompts,
        },
      );
      return EXIT.ok;
    }
    case 'tools': {
      if (cli.format !== undefined) return printToolDefinitions(client, cli.format, output);
      const { tools } = await client.listTools(undefined, options);
      print(() => toolsTable(policy, tools, output.width), tools);
      return EXIT.ok;
    }
    case 'resources': {
      const { resources } = await client.listResources(undefined, options);
      print(() => resourcesTable(policy, resources), resources);
      return EXIT.ok;
    }
    case 'prompts': {
      const { prompts } = await client.listPrompts(undefined, options);
      print(() => promptsTable(policy, prompts), prompts);
      return EXIT.ok;
    }
    case 'call': {
      const host = clientToolHost(client);
      const result = await callTool(host, cli, output, stopper, cli.target!, baseArguments, cli.args);
      return printToolResult(cli, output, result);
    }
    case 'read': {
      const result = await client.readResource({ uri: cli.target! }, options);
      const saved = cli.outputDir ? saveBinaries(cli.outputDir, result.contents ?? []) : new Map();
      print(() => renderResource(policy, result, saved), result);
      return EXIT.ok;
    }
    case 'prompt': {
      const result = await client.getPrompt(
        { name: cli.target!, arguments: Object.fromEntries(cli.args) },
        options,
      );
      print(() => renderPrompt(policy, result), result);
      return EXIT.ok;
    }
    case 'complete': {
      const [kind, ...rest] = cli.target!.split(':');
      const name = rest.join(':');
      const ref = kind === 'prompt' ? { type: 'ref/prompt', name } : { type: 'ref/resource', uri: name };
      const [argument, value] = cli.completeArgument!;
      // The values already chosen (`--arg department=Sales`): completions that depend on them.
      const context = cli.args.length > 0 ? { context: { arguments: Object.fromEntries(cli.args) } } : {};
      const { completion } = await client.complete(
        { ref, argument: { name: argument, value }, ...context },
        options,
      );
      print(
        () =>
          [
            ...completion.values.map((entry) => policy.line(entry)),
            ...(completion.hasMore ? [`(more: ${completion.total ?? 'unknown'} in all)`] : []),
          ].join('\n'),
        completion,
      );
      return EXIT.ok;
    }
    case 'watch':
      return watch(client, cli, output);
    case 'shell': {
      const { runShell } = await import('./shell.js');
      return runShell(client, cli, output, stopper, formTerminal!, environment);
    }
    case 'servers':
    case 'search':
    case 'logout':
    case 'serve':
      throw new Error(`${cli.command} runs before any server starts (runCommand)`);
  }
}

/** Prints change notifications as they arrive, until stopped or the server goes away. */
async function watch(client: Client, cli: CliArguments, output: Output): Promise<number> {
  const line = (event: string, detail: Record<string, unknown> = {}) => {
    const time = new Date().toISOString();
    if (cli.json) output.out(JSON.stringify({ time, event, ...detail }));
    else output.out(`${time} ${event}${'uri' in detail ? ` ${output.policy.line(String(detail.uri))}` : ''}`);
  };
  client.on('toolsListChanged', () => line('tools/list_changed'));
  client.on('resourcesListChanged', () => line('resources/list_changed'));
  client.on('promptsListChanged', () => line('prompts/list_changed'));
  client.on('resourceUpdated', ({ uri }) => line('resources/updated', { uri }));
  for (const uri of cli.uris) await client.subscribeResource(uri);
  if (!cli.json) output.err('conduit-mcp: watching; Ctrl-C to stop');
  return new Promise<number>((_, reject) => {
    client.on('disconnected', (reason) => reject(new ConnectionClosedError(reason)));
    client.on('closed', (reason) => reject(new ConnectionClosedError(reason ?? { type: 'closed' })));
  });
}
