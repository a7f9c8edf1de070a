import { statSync } from 'node:fs';
import path from 'node:path';
import { LOG_LEVELS, MAX_TIMER_MS } from '../index.js';
import { type CliArguments, COMMANDS, type CommandName } from './cli-arguments.js';
import { UsageProblem } from './exit-codes.js';
import { checkLlmOptions, FORMATS } from './llm-commands.js';
import {
  checkArgumentOptions,
  checkOAuthOptions,
  checkServerKindFlags,
  checkServerSource,
} from './option-rules.js';
import { type OptionValues, readOptions } from './option-table.js';
import { serveFlags } from './serve-options.js';

/** An environment variable's name, as --pass-env and --client-secret-env take it. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `KEY=VALUE` (--arg, --env). */
function pair(value: string, option: string, example: string): [string, string] {
  const at = value.indexOf('=');
  if (at <= 0)
    throw new UsageProblem(
      `${option} takes KEY=VALUE (e.g. ${option} ${example}), got ${JSON.stringify(value)}`,
    );
  return [value.slice(0, at), value.slice(at + 1)];
}

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

/** A count or a duration; at most 2^31-1, the longest delay a Node timer takes. */
function wholeNumber<Fallback extends number | undefined>(
  option: string,
  value: string | undefined,
  fallback: Fallback,
  min: number,
): number | Fallback {
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const unit = option.endsWith('bytes') || option === '--stderr-tail' ? '' : ' of milliseconds';
  if (!Number.isSafeInteger(number) || number < min || number > MAX_TIMER_MS) {
    throw new UsageProblem(
      `${option} takes a whole number${unit} ${min === 0 ? '>= 0' : '>= 1'}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/**
 * A value among `allowed` (--grant, --protocol, --log-level), or a UsageProblem naming them
 * (`a, b or c`; `listed` when they are too many for that).
 */
function oneOf<T extends string>(
  option: string,
  value: string,
  allowed: readonly T[],
  listed = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`,
): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageProblem(`${option} takes ${listed}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function checkClientSecretEnv(name: string | undefined): void {
  if (name !== undefined && !VARIABLE_NAME.test(name)) {
    throw new UsageProblem(
      '--client-secret-env takes the name of a variable that holds the secret (e.g. --client-secret-env MCP_CLIENT_SECRET), not the secret itself',
    );
  }
}

function checkPassEnv(names: readonly string[]): void {
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) {
      throw new UsageProblem(
        `--pass-env takes a variable name (e.g. --pass-env GITHUB_TOKEN), got ${JSON.stringify(name)}`,
      );
    }
  }
}

/** How many positionals a command takes itself: a URL after them names the server. */
const OWN_POSITIONALS: Record<string, number> = {
  search: 2,
  call: 2,
  read: 2,
  prompt: 2,
  complete: 4,
  logout: 2,
};

/** What the commands with a target need, in the words of their usage. */
const TARGETS: Record<string, string> = {
  search: 'a query: conduit-mcp search <query> --config <file>',
  call: 'a tool name: conduit-mcp call <tool> -- <server>',
  read: 'a resource URI: conduit-mcp read <uri> -- <server>',
  prompt: 'a prompt name: conduit-mcp prompt <name> -- <server>',
  complete:
    'a reference, an argument and a value: conduit-mcp complete prompt:<name> <argument> <value> -- <server>',
};

/** An http(s) URL, which names an HTTP server where a server command would go. */
function isHttpUrl(word: string | undefined): boolean {
  return word !== undefined && /^https?:\/\//i.test(word) && URL.canParse(word);
}

/**
 * The command, its target and further words, and an HTTP server's URL: the only word after `--`,
 * or a last positional beyond the command's own. `serverCommand` loses a URL it held. `server`:
 * `--server`, or logout's entry name when it is given with --config.
 */
function readWords(positionals: string[], serverCommand: string[], values: OptionValues) {
  let url: string | undefined;
  let server = values.server;
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
  const needsTarget = Object.hasOwn(TARGETS, command);
  if (needsTarget && target === undefined) throw new UsageProblem(`${command} needs ${TARGETS[command]}`);
  if (command === 'logout') {
    if (serverCommand.length > 0) {
      throw new UsageProblem('logout is for HTTP servers: conduit-mcp logout https://host/mcp');
    }
    if (values.config !== undefined && target !== undefined && server === undefined) {
      server = target;
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
    if (extra.length < 2) throw new UsageProblem(`complete needs ${TARGETS.complete}`);
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
  return {
    command: command as CommandName,
    target: needsTarget || command === 'logout' ? target : undefined,
    completeArgument,
    uris,
    url,
    server,
  };
}

/**
 * A command may not contain whitespace; a full path to an existing file
 * (C:\Program Files\nodejs\node.exe) is left to the library to judge.
 */
function checkServerCommand(serverCommand: readonly string[]): void {
  const program = serverCommand[0];
  if (program === undefined || !/\s/.test(program)) return;
  if (path.isAbsolute(program) && statSync(program, { throwIfNoEntry: false })?.isFile()) return;
  throw new UsageProblem(
    `the server command ${JSON.stringify(program)} contains whitespace, which commands may not: ` +
      'for a script at such a path, run it through its interpreter (-- node "/my dir/server.js"); ' +
      'for a program, put its directory in PATH (--env PATH=...) or link it from a path without spaces',
  );
}

/** Parses the command line (without node and the script). Throws UsageProblem naming the mistake. */
export function parseCliArguments(argv: readonly string[]): CliArguments | 'help' | 'version' {
  const { values, positionals, serverCommand } = readOptions(argv);
  if (values.help) return 'help';
  if (values.version) return 'version';
  const { command, target, completeArgument, uris, url, server } = readWords(
    positionals,
    serverCommand,
    values,
  );
  checkServerSource({ command, config: values.config, server, serverCommand, url });
  checkServerCommand(serverCommand);
  checkArgumentOptions(command, values);
  checkLlmOptions(command, values);
  const grant =
    values.grant === undefined
      ? undefined
      : oneOf('--grant', values.grant, ['authorization_code', 'client_credentials', 'jwt_bearer'] as const);
  checkOAuthOptions(values, grant);
  checkClientSecretEnv(values['client-secret-env']);
  const protocol = oneOf('--protocol', values.protocol ?? 'auto', ['auto', 'modern', 'legacy'] as const);
  if (values['log-level'] !== undefined)
    oneOf('--log-level', values['log-level'], LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`);
  checkPassEnv(values['pass-env'] ?? []);
  const cli: CliArguments = {
    command,
    target,
    completeArgument,
    args: (values.arg ?? []).map((value) => pair(value, '--arg', 'path=/tmp')),
    argsJson: values.args,
    json: values.json === true,
    format: values.format === undefined ? undefined : oneOf('--format', values.format, FORMATS),
    limit: wholeNumber('--limit', values.limit, undefined, 1),
    validate: values['no-validate'] !== true,
    raw: values.raw === true,
    structured: values.structured === true,
    outputDir: values.output,
    verbose: values.verbose === true,
    trace: values.trace,
    config: values.config,
    server,
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
    dpop: values.dpop === true,
    login: values.open === true ? 'open' : values['no-login'] === true ? 'never' : 'wait',
    serve: serveFlags(command, values),
  };
  checkServerKindFlags(cli);
  return cli;
}
