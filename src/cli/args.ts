import { parseArgs } from 'node:util';

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageProblem extends Error {}

export const COMMANDS = [
  'inspect',
  'tools',
  'resources',
  'prompts',
  'call',
  'read',
  'prompt',
  'servers',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface CliArguments {
  command: CommandName;
  /** The tool (call), URI (read) or prompt name (prompt). */
  target: string | undefined;
  /** `--arg key=value`, in order. */
  args: Array<[string, string]>;
  /** `--args '{"k":1}'`: the arguments as one JSON object. */
  argsJson: string | undefined;
  json: boolean;
  verbose: boolean;
  config: string | undefined;
  server: string | undefined;
  env: Array<[string, string]>;
  cwd: string | undefined;
  stderr: string | undefined;
  timeout: number | undefined;
  protocol: string | undefined;
  /** The server command after `--`. */
  serverCommand: string[];
}

export const USAGE = `Usage: conduit-mcp <command> [options] -- <server command> [args...]
       conduit-mcp <command> [options] --config <file> --server <name>
       conduit-mcp servers|tools --config <file>     every server of the file, started in parallel

Commands:
  inspect                 era, protocol version, server info, capabilities, instructions, and every list
  tools | resources | prompts   one list
  call <tool>             call a tool (--arg key=value ..., or --args '{"key":1}')
  read <uri>              read a resource
  prompt <name>           get a prompt (--arg key=value ...)
  servers --config <file> each server's state, era and tool count (exit 3 if one is not ready)

Options:
  --config <file> --server <name>   take the server from an mcpServers JSON file
  --env KEY=VALUE         extra environment for the server (repeatable)
  --cwd <dir>             the server's working directory (absolute)
  --stderr inherit|discard|<file>   where the server's stderr goes (default inherit)
  --timeout <ms>          per-request timeout (default 60000)
  --protocol auto|modern|legacy     era selection (default auto)
  --json                  machine-readable output only on stdout
  --verbose               era detection, timings and close reasons on stderr
  -h, --help              this text

Exit codes: 0 success, 1 the server answered an error or the tool returned isError,
            2 usage or configuration error, 3 the server could not be started or died.`;

function pair(value: string, option: string): [string, string] {
  const at = value.indexOf('=');
  if (at <= 0) throw new UsageProblem(`${option} takes KEY=VALUE, got ${JSON.stringify(value)}`);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** Parses the command line (without node and the script). Throws UsageProblem naming the mistake. */
export function parseCliArguments(argv: readonly string[]): CliArguments | 'help' {
  const split = argv.indexOf('--');
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const serverCommand = split === -1 ? [] : argv.slice(split + 1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: own,
      allowPositionals: true,
      strict: true,
      options: {
        arg: { type: 'string', multiple: true },
        args: { type: 'string' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
        config: { type: 'string' },
        server: { type: 'string' },
        env: { type: 'string', multiple: true },
        cwd: { type: 'string' },
        stderr: { type: 'string' },
        timeout: { type: 'string' },
        protocol: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageProblem((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, target, ...extra] = positionals;
  if (command === undefined) throw new UsageProblem('a command is required');
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageProblem(
      `unknown command ${JSON.stringify(command)}; the commands are ${COMMANDS.join(', ')}`,
    );
  }
  const needsTarget = command === 'call' || command === 'read' || command === 'prompt';
  const what = command === 'call' ? 'a tool name' : command === 'read' ? 'a resource URI' : 'a prompt name';
  if (needsTarget && target === undefined) throw new UsageProblem(`${command} needs ${what}`);
  const unexpected = needsTarget ? extra : [target, ...extra].filter((value) => value !== undefined);
  if (unexpected.length > 0) {
    throw new UsageProblem(
      `unexpected argument ${JSON.stringify(unexpected[0])}: put the server command after --, e.g. conduit-mcp ${command} -- node server.js`,
    );
  }
  // servers, and tools without --server, take the whole file.
  const wholeFile = command === 'servers' || (command === 'tools' && values.server === undefined);
  if (command === 'servers' && (values.config === undefined || values.server !== undefined)) {
    throw new UsageProblem(
      'servers takes --config <file> (and no --server): conduit-mcp servers --config mcp.json',
    );
  }
  if (
    !(wholeFile && values.config !== undefined) &&
    (values.config === undefined) !== (values.server === undefined)
  ) {
    throw new UsageProblem('--config and --server go together: --config <file> --server <name>');
  }
  if (values.config !== undefined && serverCommand.length > 0) {
    throw new UsageProblem('give either --config/--server or a server command after --, not both');
  }
  if (values.config === undefined && serverCommand.length === 0) {
    throw new UsageProblem('no server: add -- <command> [args...] or --config <file> --server <name>');
  }
  let timeout: number | undefined;
  if (values.timeout !== undefined) {
    timeout = Number(values.timeout);
    if (!Number.isSafeInteger(timeout) || timeout <= 0) {
      throw new UsageProblem(
        `--timeout takes a positive number of milliseconds, got ${JSON.stringify(values.timeout)}`,
      );
    }
  }
  if (values.args !== undefined && command !== 'call') throw new UsageProblem('--args is for call');
  if (values.arg !== undefined && command !== 'call' && command !== 'prompt') {
    throw new UsageProblem('--arg is for call and prompt');
  }
  return {
    command: command as CommandName,
    target: needsTarget ? target : undefined,
    args: ((values.arg as string[] | undefined) ?? []).map((value) => pair(value, '--arg')),
    argsJson: values.args as string | undefined,
    json: values.json === true,
    verbose: values.verbose === true,
    config: values.config as string | undefined,
    server: values.server as string | undefined,
    env: ((values.env as string[] | undefined) ?? []).map((value) => pair(value, '--env')),
    cwd: values.cwd as string | undefined,
    stderr: values.stderr as string | undefined,
    timeout,
    protocol: values.protocol as string | undefined,
    serverCommand,
  };
}
