import dc from 'node:diagnostics_channel';
import {
  AbortError,
  CapabilityError,
  Client,
  ClientClosedError,
  type CloseReason,
  ConfigError,
  ConnectionClosedError,
  describeCloseReason,
  McpError,
  type Progress,
  type ProtocolMode,
  RequestTimeoutError,
  SpawnError,
  type Tool,
  UnsupportedProtocolVersionError,
} from '../index.js';
import { type CliArguments, UsageProblem } from './args.js';
import { transportFromArguments } from './config.js';
import { runPoolCommand, usesPool } from './pool-commands.js';
import {
  promptsTable,
  renderPrompt,
  renderResource,
  renderServer,
  renderToolResult,
  resourcesTable,
  templatesTable,
  toolsTable,
} from './render.js';

export const EXIT = { ok: 0, serverError: 1, usage: 2, serverDown: 3 } as const;

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (live progress line). */
  errIsTty: boolean;
}

/** The exit code for an error: 1 the server said no, 2 our usage or configuration, 3 no server. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageProblem || error instanceof ConfigError) return EXIT.usage;
  if (
    error instanceof SpawnError ||
    error instanceof ConnectionClosedError ||
    error instanceof ClientClosedError ||
    error instanceof UnsupportedProtocolVersionError
  ) {
    return EXIT.serverDown;
  }
  return EXIT.serverError;
}

/** The tool's arguments: `--args` JSON, then each `--arg`, typed by the tool's input schema. */
export function toolArguments(cli: CliArguments, tool: Tool | undefined): Record<string, unknown> {
  let result: Record<string, unknown> = {};
  if (cli.argsJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(cli.argsJson);
    } catch (error) {
      throw new UsageProblem(`--args must be a JSON object: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new UsageProblem('--args must be a JSON object, e.g. --args \'{"path":"/tmp"}\'');
    }
    result = parsed as Record<string, unknown>;
  }
  const properties = (tool?.inputSchema?.properties ?? {}) as Record<string, { type?: unknown }>;
  for (const [key, raw] of cli.args) {
    const type = properties[key]?.type;
    if (type === undefined || type === 'string') {
      result[key] = raw;
      continue;
    }
    try {
      result[key] = JSON.parse(raw);
    } catch {
      throw new UsageProblem(`--arg ${key} must be JSON for a ${String(type)}, got ${JSON.stringify(raw)}`);
    }
  }
  return result;
}

function verboseLogging(client: Client, output: Output): () => void {
  const started = performance.now();
  const stamp = () => `[${Math.round(performance.now() - started)} ms]`;
  const subscriptions: Array<[string, (message: unknown) => void]> = [
    [
      'conduit-mcp:transport:spawn',
      (m) =>
        output.err(
          `${stamp()} spawned ${(m as { command: string }).command} (pid ${(m as { pid: number }).pid})`,
        ),
    ],
    [
      'conduit-mcp:transport:exit',
      (m) => {
        const { pid, code, signal } = m as { pid: number; code: number | null; signal: string | null };
        output.err(`${stamp()} pid ${pid} exited (${signal ? `signal ${signal}` : `status ${code}`})`);
      },
    ],
    [
      'conduit-mcp:transport:close',
      (m) =>
        output.err(
          `${stamp()} transport closed: ${describeCloseReason((m as { reason: CloseReason }).reason)}`,
        ),
    ],
    [
      'conduit-mcp:transport:junk',
      (m) => output.err(`${stamp()} dropped a non-JSON-RPC line (${(m as { reason: string }).reason})`),
    ],
  ];
  for (const [name, listener] of subscriptions) dc.subscribe(name, listener);
  client.on('ready', (event) =>
    output.err(`${stamp()} ready: ${event.era} era, protocol ${event.protocolVersion}`),
  );
  client.on('reconnecting', (event) => output.err(`${stamp()} reconnecting (attempt ${event.attempt})`));
  return () => {
    for (const [name, listener] of subscriptions) dc.unsubscribe(name, listener);
  };
}

function progressLine(output: Output): ((progress: Progress) => void) | undefined {
  if (!output.errIsTty) return undefined;
  return (progress) => {
    const total = progress.total !== undefined ? `/${progress.total}` : '';
    output.err(`\r\u001b[2K${progress.progress}${total} ${progress.message ?? ''}`.trimEnd());
  };
}

/** Runs one CLI command against the server; returns the exit code. */
export async function runCommand(cli: CliArguments, output: Output): Promise<number> {
  const protocol = cli.protocol ?? 'auto';
  if (protocol !== 'auto' && protocol !== 'modern' && protocol !== 'legacy') {
    throw new UsageProblem(`--protocol takes auto, modern or legacy, got ${JSON.stringify(protocol)}`);
  }
  if (usesPool(cli)) return runPoolCommand(cli, output);
  const client = new Client({
    name: cli.server ?? 'server',
    transport: await transportFromArguments(cli, output.err),
    protocol: protocol as ProtocolMode,
    requestTimeout: cli.timeout ?? 60_000,
    reconnect: { maxReconnects: 0 },
  });
  const stopVerbose = cli.verbose ? verboseLogging(client, output) : () => {};
  try {
    await client.connect();
    return await dispatch(client, cli, output);
  } finally {
    await client.close();
    stopVerbose();
  }
}

async function dispatch(client: Client, cli: CliArguments, output: Output): Promise<number> {
  const print = (human: () => string, json: unknown) =>
    output.out(cli.json ? JSON.stringify(json, null, 2) : human());
  const has = (capability: string) => Boolean(client.serverCapabilities?.[capability]);
  switch (cli.command) {
    case 'inspect': {
      const tools = has('tools') ? (await client.listTools()).tools : [];
      const resources = has('resources') ? (await client.listResources()).resources : [];
      const templates = has('resources') ? (await client.listResourceTemplates()).resourceTemplates : [];
      const prompts = has('prompts') ? (await client.listPrompts()).prompts : [];
      print(
        () =>
          [
            renderServer(client),
            '',
            `Tools (${tools.length})`,
            toolsTable(tools),
            '',
            `Resources (${resources.length})`,
            resourcesTable(resources),
            '',
            `Resource templates (${templates.length})`,
            templatesTable(templates),
            '',
            `Prompts (${prompts.length})`,
            promptsTable(prompts),
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
      const { tools } = await client.listTools();
      print(() => toolsTable(tools), tools);
      return EXIT.ok;
    }
    case 'resources': {
      const { resources } = await client.listResources();
      print(() => resourcesTable(resources), resources);
      return EXIT.ok;
    }
    case 'prompts': {
      const { prompts } = await client.listPrompts();
      print(() => promptsTable(prompts), prompts);
      return EXIT.ok;
    }
    case 'call': {
      const needsSchema = cli.args.length > 0;
      const tool = needsSchema
        ? (await client.listTools()).tools.find((t) => t.name === cli.target)
        : undefined;
      const onProgress = cli.json ? undefined : progressLine(output);
      const result = await client.callTool(
        { name: cli.target!, arguments: toolArguments(cli, tool) },
        onProgress ? { onProgress } : {},
      );
      if (onProgress) output.err('\r\u001b[2K');
      print(() => renderToolResult(result), result);
      return result.isError ? EXIT.serverError : EXIT.ok;
    }
    case 'read': {
      const result = await client.readResource({ uri: cli.target! });
      print(() => renderResource(result), result);
      return EXIT.ok;
    }
    case 'servers':
      throw new UsageProblem('servers takes --config <file>');
    case 'prompt': {
      const result = await client.getPrompt({ name: cli.target!, arguments: Object.fromEntries(cli.args) });
      print(() => renderPrompt(result), result);
      return EXIT.ok;
    }
  }
}

/** One line for stderr: what failed, without a stack trace. */
export function describeFailure(error: unknown): string {
  if (error instanceof McpError) return `the server answered error ${error.code}: ${error.message}`;
  if (
    error instanceof CapabilityError ||
    error instanceof RequestTimeoutError ||
    error instanceof AbortError ||
    error instanceof Error
  ) {
    return error.message;
  }
  return String(error);
}
