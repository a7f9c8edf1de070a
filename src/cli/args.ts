import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** A mistake in how the command was called: one line on stderr, exit code 2. */
export class UsageProblem extends Error {}

/** Tool arguments that do not match the tool's input schema (exit code 2; --help would not help). */
export class InvalidArguments extends UsageProblem {}

export const COMMANDS = [
  'inspect',
  'tools',
  'resources',
  'prompts',
  'call',
  'read',
  'prompt',
  'servers',
  'complete',
  'watch',
  'shell',
  'logout',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface CliArguments {
  command: CommandName;
  /** The tool (call), URI (read), prompt name (prompt) or reference (complete). */
  target: string | undefined;
  /** complete: the argument's name and the value typed so far. */
  completeArgument: [string, string] | undefined;
  /** `--arg key=value`, in order. */
  args: Array<[string, string]>;
  /** `--args`: a JSON object, `@file.json`, or `-` for stdin. */
  argsJson: string | undefined;
  json: boolean;
  /** Check call arguments against the tool's inputSchema before sending (`--no-validate`: don't). */
  validate: boolean;
  raw: boolean;
  structured: boolean;
  outputDir: string | undefined;
  verbose: boolean;
  trace: string | undefined;
  config: string | undefined;
  server: string | undefined;
  env: Array<[string, string]>;
  passEnv: string[];
  cwd: string | undefined;
  stderr: string | undefined;
  /** `--stderr-tail`; undefined when not given (stdio servers then keep 8192 bytes). */
  stderrTail: number | undefined;
  timeout: number;
  maxTime: number | undefined;
  connectTimeout: number;
  probeTimeout: number | undefined;
  maxMessageBytes: number | undefined;
  maxJunkLines: number | undefined;
  protocol: 'auto' | 'modern' | 'legacy';
  logLevel: string | undefined;
  roots: string[];
  /** watch: resources to subscribe to. */
  uris: string[];
  /** The server command after `--`. */
  serverCommand: string[];
  /** An HTTP server's URL: the last positional (or the only word after `--`) when it is one. */
  url: string | undefined;
  /** `--header 'Name: value'`, in order; each value is sent as a Secret. */
  headers: Array<[string, string]>;
  /** `--allow-insecure`: plain http: to a host that is not loopback. */
  allowInsecure: boolean;
  /** OAuth: `--client-id`, a pre-registered client. */
  clientId: string | undefined;
  /** OAuth: `--client-secret-env NAME`, the variable holding that client's secret. */
  clientSecretEnv: string | undefined;
  /** OAuth: `--grant`. */
  grant: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | undefined;
  /** OAuth: `--assertion-file PATH`, the workload's JWT for `--grant jwt_bearer`, read when a token is needed. */
  assertionFile: string | undefined;
  /** OAuth: `--scope` (repeatable). */
  scopes: string[];
  /**
   * OAuth consent: `wait` prints the URL and waits for the redirect (the default), `open` also
   * hands the URL to the system's browser (`--open`), `never` fails at once (`--no-login`).
   */
  login: 'wait' | 'open' | 'never';
}

/** An http(s) URL, which names an HTTP server where a server command would go. */
export function isHttpUrl(word: string | undefined): boolean {
  return word !== undefined && /^https?:\/\//i.test(word) && URL.canParse(word);
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

export const HELP_HINT = "run 'conduit-mcp --help' for usage";

export const USAGE = `Usage: conduit-mcp <command> [options] -- <server command> [args...]
       conduit-mcp <command> [options] <https://host/mcp>   an HTTP server (Streamable HTTP or HTTP+SSE)
       conduit-mcp <command> [options] --config <file> --server <name>
       conduit-mcp servers|tools|call --config <file>   every server of the file, started in parallel

Commands:
  inspect                 era, protocol version, server info, capabilities, instructions, and every list
  tools | resources | prompts   one list (tools with their parameters)
  call <tool>             call a tool (--arg key=value ..., --args '{"key":1}', --args @file.json, --args -);
                          arguments are checked against its input schema first (--no-validate: not)
  read <uri>              read a resource
  prompt <name>           get a prompt (--arg key=value ...)
  servers --config <file> each server's state, era and tool count (exit 3 if one is not ready)
  complete <ref> <argument> <value>   completions; <ref> is prompt:<name> or resource:<uri template> (--arg k=v: context)
  watch [uri...]          print list-changed notifications, and resource-updated ones for each uri, as they arrive
  shell                   one server, many commands (tab completes tool names; history);
                          the server's forms (elicitation) are asked at the terminal
  logout <url>            remove the OAuth tokens stored for an HTTP server (or: logout <name> --config <file>)

Server:
  --config <file> --server <name>   take the server from an mcpServers JSON file
  --header 'Name: value'  HTTP servers: send this header (repeatable); values are kept secret
  --allow-insecure        HTTP servers: allow plain http: to a host that is not loopback
  --env KEY=VALUE         extra environment for the server (repeatable)
  --pass-env NAME         let this variable of your environment through to the server (repeatable)
  --cwd <dir>             the server's working directory
  --stderr inherit|discard|<file>   where the server's stderr goes (default inherit)
  --stderr-tail <bytes>   how much of its stderr to show when it fails (default 8192, 0: none)
  --protocol auto|modern|legacy     era selection (default auto)
  --root <dir>            offer this directory as a root (repeatable)
  --log-level <level>     ask for server log messages at this level, shown on stderr

OAuth (HTTP servers that answer 401; tokens kept per server in <config dir>/conduit-mcp/tokens,
the config dir being $XDG_CONFIG_HOME, else ~/.config, or %APPDATA% on Windows; logout removes them):
  --client-id <id>        a client registered with the authorization server beforehand
  --client-secret-env <NAME>   that client's secret, read from this environment variable
  --grant authorization_code|client_credentials|jwt_bearer   default authorization_code: the URL
                          to open is printed on stderr and the redirect caught on 127.0.0.1;
                          client_credentials: machine to machine, with --client-id and
                          --client-secret-env; jwt_bearer: workload identity, with --assertion-file
  --assertion-file <path> the workload's JWT (e.g. a Kubernetes projected token), read again
                          whenever a token is due, so a rotated file is picked up
  --scope <scope>         ask for this scope (repeatable; default: the server's)
  --open                  also open the authorization URL in the system's browser
  --no-login              never ask for consent: fail at once (exit 1) where it would be needed,
                          e.g. in scripts and CI, where nobody can open the URL

Time and limits:
  --timeout <ms>          per request, restarted by each progress notification (default 60000)
  --max-time <ms>         hard cap per request, progress or not (default 10 x --timeout)
  --connect-timeout <ms>  start-up: spawn, era detection and handshake (default 60000)
  --probe-timeout <ms>    wait for the era probe's answer (default 3000)
  --max-message-bytes <n> longest line (HTTP: body or SSE event) the server may send (default 8388608)
  --max-junk-lines <n>    non-JSON-RPC lines in a row tolerated (default 10)

Output:
  --json                  JSON only on stdout, errors too: {"error":{"code","message",...}}
  --structured            call: print structuredContent (as JSON) as well as the content
  --output <dir>          call, read: save images, audio and blobs as files in <dir>
  --raw                   print server text as is (default: control characters shown as \\x1b etc.)
  --verbose               spawn, era detection steps, each HTTP status, timings and close reasons
                          on stderr (Secrets redacted)
  --trace <file|->        every JSON-RPC message, both ways, Secrets redacted (- for stderr)
  -h, --help              this text
  --version               conduit-mcp's version

Exit codes:
  0 success                        1 the server answered an error (HTTP: an error status), or the tool returned isError
  2 usage or configuration error   3 the server could not be started or reached, exited or closed the connection
  4 timed out (--timeout, --max-time, --connect-timeout)
  5 the server lacks what was asked (capability, protocol era or version)
  6 the server broke the protocol  129/130/143 stopped by SIGHUP/SIGINT/SIGTERM
  141 stdout was closed early (e.g. | head)`;

/** Options that take a number: a negative one is still their value (`--timeout -5`), to be refused by name. */
const NUMBER_OPTIONS = new Set([
  '--timeout',
  '--max-time',
  '--connect-timeout',
  '--probe-timeout',
  '--max-message-bytes',
  '--max-junk-lines',
  '--stderr-tail',
]);

function pair(value: string, option: string, example: string): [string, string] {
  const at = value.indexOf('=');
  if (at <= 0)
    throw new UsageProblem(
      `${option} takes KEY=VALUE (e.g. ${option} ${example}), got ${JSON.stringify(value)}`,
    );
  return [value.slice(0, at), value.slice(at + 1)];
}

function wholeNumber(option: string, value: string | undefined, fallback: number, min: number): number;
function wholeNumber(
  option: string,
  value: string | undefined,
  fallback: undefined,
  min: number,
): number | undefined;
function wholeNumber(
  option: string,
  value: string | undefined,
  fallback: number | undefined,
  min: number,
): number | undefined {
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const unit = option.endsWith('bytes') || option === '--stderr-tail' ? '' : ' of milliseconds';
  if (!Number.isSafeInteger(number) || number < min || number > 2 ** 31 - 1) {
    throw new UsageProblem(
      `${option} takes a whole number${unit} ${min === 0 ? '>= 0' : '>= 1'}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

export const OPTIONS = {
  arg: { type: 'string', multiple: true },
  args: { type: 'string' },
  json: { type: 'boolean' },
  'no-validate': { type: 'boolean' },
  raw: { type: 'boolean' },
  structured: { type: 'boolean' },
  output: { type: 'string' },
  verbose: { type: 'boolean' },
  trace: { type: 'string' },
  config: { type: 'string' },
  server: { type: 'string' },
  env: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  'allow-insecure': { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-secret-env': { type: 'string' },
  grant: { type: 'string' },
  'assertion-file': { type: 'string' },
  scope: { type: 'string', multiple: true },
  open: { type: 'boolean' },
  'no-login': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
  cwd: { type: 'string' },
  stderr: { type: 'string' },
  'stderr-tail': { type: 'string' },
  timeout: { type: 'string' },
  'max-time': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'probe-timeout': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'max-junk-lines': { type: 'string' },
  protocol: { type: 'string' },
  'log-level': { type: 'string' },
  root: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** parseArgs' messages, in our words. */
function explainParseError(error: Error): string {
  const unknown = /Unknown option '([^']+)'/.exec(error.message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /Option '(--[\w-]+)[^']*' argument missing/.exec(error.message);
  if (missing) return `${missing[1]} needs a value`;
  const ambiguous = /Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(error.message);
  if (ambiguous)
    return `${ambiguous[1]} needs a value (write ${ambiguous[1]}=<value> for one that starts with -)`;
  return error.message;
}

/** Parses the command line (without node and the script). Throws UsageProblem naming the mistake. */
export function parseCliArguments(argv: readonly string[]): CliArguments | 'help' | 'version' {
  const split = argv.indexOf('--');
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const serverCommand = split === -1 ? [] : argv.slice(split + 1);
  // `--timeout -5` is the option with a wrong value, not an option named -5.
  for (let index = 0; index < own.length - 1; index++) {
    if (NUMBER_OPTIONS.has(own[index]!) && /^-\d/.test(own[index + 1]!)) {
      own.splice(index, 2, `${own[index]}=${own[index + 1]}`);
    }
  }
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: own, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    throw new UsageProblem(explainParseError(error as Error));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  // An HTTP server: the only word after `--`, or a last positional beyond the command's own.
  let url: string | undefined;
  if (serverCommand.length === 1 && isHttpUrl(serverCommand[0])) {
    url = serverCommand.pop();
  } else if (
    serverCommand.length === 0 &&
    values.config === undefined &&
    positionals.length > (OWN_POSITIONALS[positionals[0] ?? ''] ?? 1) &&
    isHttpUrl(positionals.at(-1))
  ) {
    url = positionals.pop();
  }
  const [command, target, ...extra] = positionals;
  if (command === undefined) throw new UsageProblem(`a command is required: ${COMMANDS.join(', ')}`);
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new UsageProblem(
      `unknown command ${JSON.stringify(command)}; the commands are ${COMMANDS.join(', ')}`,
    );
  }
  const needsTarget = ['call', 'read', 'prompt', 'complete'].includes(command);
  const what: Record<string, string> = {
    call: 'a tool name: conduit-mcp call <tool> -- <server>',
    read: 'a resource URI: conduit-mcp read <uri> -- <server>',
    prompt: 'a prompt name: conduit-mcp prompt <name> -- <server>',
    complete:
      'a reference, an argument and a value: conduit-mcp complete prompt:<name> <argument> <value> -- <server>',
  };
  if (needsTarget && target === undefined) throw new UsageProblem(`${command} needs ${what[command]}`);
  if (command === 'logout') {
    if (serverCommand.length > 0) {
      throw new UsageProblem('logout is for HTTP servers: conduit-mcp logout https://host/mcp');
    }
    if (values.config !== undefined && target !== undefined && values.server === undefined) {
      values.server = target;
    } else if (values.config === undefined && isHttpUrl(target)) {
      url = target;
    } else if (values.config === undefined || target !== undefined) {
      throw new UsageProblem(
        "logout takes the server's URL (conduit-mcp logout https://host/mcp), or its name with --config <file>",
      );
    }
  }
  let completeArgument: [string, string] | undefined;
  let unexpected =
    needsTarget || command === 'logout' ? extra : [target, ...extra].filter((value) => value !== undefined);
  const uris = command === 'watch' ? unexpected : [];
  if (command === 'watch') unexpected = [];
  if (command === 'complete') {
    if (extra.length < 2) throw new UsageProblem(`complete needs ${what.complete}`);
    if (!/^(prompt|resource):./.test(target!)) {
      throw new UsageProblem(
        `complete takes prompt:<name> or resource:<uri template> as its reference, got ${JSON.stringify(target)}`,
      );
    }
    completeArgument = [extra[0]!, extra[1]!];
    unexpected = extra.slice(2);
  }
  if (unexpected.length > 0) {
    throw new UsageProblem(
      `unexpected argument ${JSON.stringify(unexpected[0])}: put the server command after --, e.g. conduit-mcp ${command} -- node server.js, or give an http(s) URL`,
    );
  }
  // servers, and tools and call without --server, take the whole file.
  const wholeFile = command === 'servers' || (/^(tools|call)$/.test(command) && values.server === undefined);
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
  if (values.config !== undefined && (serverCommand.length > 0 || url !== undefined)) {
    throw new UsageProblem(
      `give either --config/--server or ${url !== undefined ? 'a URL' : 'a server command after --'}, not both`,
    );
  }
  if (values.config === undefined && serverCommand.length === 0 && url === undefined) {
    throw new UsageProblem(
      'no server: add -- <command> [args...], an http(s) URL, or --config <file> --server <name>',
    );
  }
  // A full path to an existing file (C:\Program Files\nodejs\node.exe) is left to the library to judge.
  const spacedFile =
    path.isAbsolute(serverCommand[0] ?? '') &&
    statSync(serverCommand[0]!, { throwIfNoEntry: false })?.isFile();
  if (serverCommand.length > 0 && /\s/.test(serverCommand[0]!) && !spacedFile) {
    throw new UsageProblem(
      `the server command ${JSON.stringify(serverCommand[0])} contains whitespace, which commands may not: ` +
        'for a script at such a path, run it through its interpreter (-- node "/my dir/server.js"); ' +
        'for a program, put its directory in PATH (--env PATH=...) or link it from a path without spaces',
    );
  }
  if (values.args !== undefined && command !== 'call' && command !== 'shell') {
    throw new UsageProblem('--args is for call');
  }
  if (values.arg !== undefined && !['call', 'prompt', 'complete'].includes(command)) {
    throw new UsageProblem('--arg is for call, prompt and complete (its context)');
  }
  const grant = values.grant;
  if (
    grant !== undefined &&
    grant !== 'authorization_code' &&
    grant !== 'client_credentials' &&
    grant !== 'jwt_bearer'
  ) {
    throw new UsageProblem(
      `--grant takes authorization_code, client_credentials or jwt_bearer, got ${JSON.stringify(grant)}`,
    );
  }
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
  if (
    values['client-secret-env'] !== undefined &&
    !/^[A-Za-z_][A-Za-z0-9_]*$/.test(values['client-secret-env'])
  ) {
    throw new UsageProblem(
      '--client-secret-env takes the name of a variable that holds the secret (e.g. --client-secret-env MCP_CLIENT_SECRET), not the secret itself',
    );
  }
  const protocol = values.protocol ?? 'auto';
  if (protocol !== 'auto' && protocol !== 'modern' && protocol !== 'legacy') {
    throw new UsageProblem(`--protocol takes auto, modern or legacy, got ${JSON.stringify(protocol)}`);
  }
  if (values['log-level'] !== undefined && !LOG_LEVELS.includes(values['log-level'])) {
    throw new UsageProblem(
      `--log-level takes one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(values['log-level'])}`,
    );
  }
  for (const name of values['pass-env'] ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageProblem(
        `--pass-env takes a variable name (e.g. --pass-env GITHUB_TOKEN), got ${JSON.stringify(name)}`,
      );
    }
  }
  const cli: CliArguments = {
    command: command as CommandName,
    target: needsTarget || command === 'logout' ? target : undefined,
    completeArgument,
    args: (values.arg ?? []).map((value) => pair(value, '--arg', 'path=/tmp')),
    argsJson: values.args,
    json: values.json === true,
    validate: values['no-validate'] !== true,
    raw: values.raw === true,
    structured: values.structured === true,
    outputDir: values.output,
    verbose: values.verbose === true,
    trace: values.trace,
    config: values.config,
    server: values.server,
    env: (values.env ?? []).map((value) => pair(value, '--env', 'LOG_LEVEL=debug')),
    passEnv: values['pass-env'] ?? [],
    cwd: values.cwd,
    stderr: values.stderr,
    stderrTail: wholeNumber('--stderr-tail', values['stderr-tail'], undefined, 0),
    timeout: wholeNumber('--timeout', values.timeout, 60_000, 1),
    maxTime: wholeNumber('--max-time', values['max-time'], undefined, 1),
    connectTimeout: wholeNumber('--connect-timeout', values['connect-timeout'], 60_000, 1),
    probeTimeout: wholeNumber('--probe-timeout', values['probe-timeout'], undefined, 1),
    maxMessageBytes: wholeNumber('--max-message-bytes', values['max-message-bytes'], undefined, 1),
    maxJunkLines: wholeNumber('--max-junk-lines', values['max-junk-lines'], undefined, 0),
    protocol,
    logLevel: values['log-level'],
    roots: values.root ?? [],
    uris,
    serverCommand,
    url,
    headers: (values.header ?? []).map(headerPair),
    allowInsecure: values['allow-insecure'] === true,
    clientId: values['client-id'],
    clientSecretEnv: values['client-secret-env'],
    grant,
    assertionFile: values['assertion-file'],
    scopes: values.scope ?? [],
    login: values.open === true ? 'open' : values['no-login'] === true ? 'never' : 'wait',
  };
  if (url === undefined && values.config === undefined) {
    // A config entry's kind is known once it is read (transport-options checks it then).
    const httpOnly = httpOnlyFlags(cli);
    if (httpOnly.length > 0) {
      throw new UsageProblem(
        `${httpOnly.join(', ')} ${httpOnly.length === 1 ? 'is' : 'are'} for HTTP servers: give the server's URL (conduit-mcp ${command} https://host/mcp) instead of a command`,
      );
    }
  }
  if (url !== undefined) {
    const stdioOnly = stdioOnlyFlags(cli);
    if (stdioOnly.length > 0) {
      throw new UsageProblem(
        `${stdioOnly.join(', ')} ${stdioOnly.length === 1 ? 'is' : 'are'} for a server command (stdio); ${url} is an HTTP server`,
      );
    }
  }
  return cli;
}

/** How many positionals a command takes itself: a URL after them names the server. */
const OWN_POSITIONALS: Record<string, number> = { call: 2, read: 2, prompt: 2, complete: 4, logout: 2 };

/** `--header 'Name: value'` (curl's form). The value is not shown in the message: it may be a token. */
function headerPair(value: string): [string, string] {
  const at = value.indexOf(':');
  const name = at > 0 ? value.slice(0, at).trim() : '';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
    throw new UsageProblem(
      `--header takes 'Name: value' (e.g. --header 'X-Api-Key: ...'); got one without a valid name before the colon`,
    );
  }
  return [name, value.slice(at + 1).trim()];
}
