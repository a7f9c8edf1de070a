import type { CliArguments, CommandName } from './cli-arguments.js';
import { UsageProblem } from './exit-codes.js';
import type { OptionValues } from './option-table.js';

/** `--a is`, `--a, --b are`: the start of a message about flags given where they do not belong. */
export function flagsAre(flags: readonly string[]): string {
  return `${flags.join(', ')} ${flags.length === 1 ? 'is' : 'are'}`;
}

/** Flags that only an HTTP server can use, with whether this command line gives them. */
export function httpOnlyFlags(cli: CliArguments): string[] {
  return [
    cli.headers.length > 0 ? '--header' : '',
    cli.allowInsecure ? '--allow-insecure' : '',
    cli.clientId !== undefined ? '--client-id' : '',
    cli.clientSecretEnv !== undefined ? '--client-secret-env' : '',
    cli.grant !== undefined ? '--grant' : '',
    cli.assertionFile !== undefined ? '--assertion-file' : '',
    cli.scopes.length > 0 ? '--scope' : '',
    cli.dpop ? '--dpop' : '',
    cli.login === 'open' ? '--open' : '',
    cli.login === 'never' ? '--no-login' : '',
  ].filter(Boolean);
}

/** Flags that only a server command (stdio) can use, with whether this command line gives them. */
export function stdioOnlyFlags(cli: CliArguments): string[] {
  return [
    cli.env.length > 0 ? '--env' : '',
    cli.passEnv.length > 0 ? '--pass-env' : '',
    cli.cwd !== undefined ? '--cwd' : '',
    cli.stderr !== undefined ? '--stderr' : '',
    cli.stderrTail !== undefined ? '--stderr-tail' : '',
    cli.maxJunkLines !== undefined ? '--max-junk-lines' : '',
  ].filter(Boolean);
}

/** Where the server comes from: a config file (one entry, or the whole file), a URL, or a command after `--`. */
export function checkServerSource(source: {
  command: CommandName;
  config: string | undefined;
  server: string | undefined;
  serverCommand: readonly string[];
  url: string | undefined;
}): void {
  const { command, config, server, serverCommand, url } = source;
  // servers, and tools and call without --server, take the whole file.
  const wholeFile =
    command === 'servers' ||
    command === 'search' ||
    (/^(tools|call|serve)$/.test(command) && server === undefined);
  if ((command === 'servers' || command === 'search') && (config === undefined || server !== undefined)) {
    throw new UsageProblem(
      command === 'servers'
        ? 'servers takes --config <file> (and no --server): conduit-mcp servers --config mcp.json'
        : 'search takes --config <file> (and no --server): conduit-mcp search <query> --config mcp.json',
    );
  }
  if (!(wholeFile && config !== undefined) && (config === undefined) !== (server === undefined)) {
    throw new UsageProblem('--config and --server go together: --config <file> --server <name>');
  }
  if (config !== undefined && (serverCommand.length > 0 || url !== undefined)) {
    throw new UsageProblem(
      `give either --config/--server or ${url !== undefined ? 'a URL' : 'a server command after --'}, not both`,
    );
  }
  if (config === undefined && serverCommand.length === 0 && url === undefined) {
    throw new UsageProblem(
      'no server: add -- <command> [args...], an http(s) URL, or --config <file> --server <name>',
    );
  }
}

/** --args and --arg belong to the commands that send arguments. */
export function checkArgumentOptions(command: CommandName, values: OptionValues): void {
  if (values.args !== undefined && command !== 'call' && command !== 'shell') {
    throw new UsageProblem('--args is for call');
  }
  if (values.arg !== undefined && !['call', 'prompt', 'complete'].includes(command)) {
    throw new UsageProblem('--arg is for call, prompt and complete (its context)');
  }
}

/** OAuth flags that contradict or need each other. */
export function checkOAuthOptions(values: OptionValues, grant: CliArguments['grant']): void {
  if (values.open === true && values['no-login'] === true) {
    throw new UsageProblem('--open and --no-login contradict each other: keep one of the two');
  }
  if ((grant === 'jwt_bearer') !== (values['assertion-file'] !== undefined)) {
    throw new UsageProblem(
      grant === 'jwt_bearer'
        ? '--grant jwt_bearer needs the workload token: --assertion-file <path>'
        : '--assertion-file is for --grant jwt_bearer',
    );
  }
}

/**
 * Flags for the other kind of server than the one given. A config entry's kind is known only once
 * the file is read (transport-options checks it then).
 */
export function checkServerKindFlags(cli: CliArguments): void {
  if (cli.url === undefined && cli.config === undefined) {
    const httpOnly = httpOnlyFlags(cli);
    if (httpOnly.length > 0) {
      throw new UsageProblem(
        `${flagsAre(httpOnly)} for HTTP servers: give the server's URL (conduit-mcp ${cli.command} https://host/mcp) instead of a command`,
      );
    }
  }
  if (cli.url !== undefined) {
    const stdioOnly = stdioOnlyFlags(cli);
    if (stdioOnly.length > 0) {
      throw new UsageProblem(
        `${flagsAre(stdioOnly)} for a server command (stdio); ${cli.url} is an HTTP server`,
      );
    }
  }
}
