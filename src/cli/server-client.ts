import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  Client,
  type ClientHandlers,
  type ClientOptions,
  ConfigError,
  type LogLevel,
  type RequestOptions,
  UnsupportedProtocolVersionError,
} from '../index.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { elicitationHandler, type FormTerminal } from './elicit.js';
import { CliTimeout, Unsupported, UsageProblem } from './exit-codes.js';
import { messageContextOf } from './messages.js';
import { AuthorizationWait, oauthOptions } from './oauth.js';
import type { Output } from './output.js';
import type { Stopper } from './stop.js';
import { transportFromArguments } from './transport-options.js';

/** `--root <dir>`: each an existing directory, offered as a file:// root. */
function rootsHandler(roots: readonly string[]): ClientHandlers['roots'] {
  const entries = roots.map((root) => {
    const directory = path.resolve(root);
    if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageProblem(`--root ${root}: ${directory} is not an existing directory`);
    }
    return { uri: pathToFileURL(directory).href, name: path.basename(directory) || directory };
  });
  return async () => ({ roots: entries });
}

/** The command line's Client, and what connecting it needs to know. */
interface ServerClient {
  client: Client;
  /** An HTTP server: a failed connect says "at that URL" rather than "on stdio". */
  http: boolean;
  /** The OAuth consent wait, which stops the connect deadline's clock. */
  authorizationWait: AuthorizationWait;
}

/** The client for the command line's server. It starts nothing. `formTerminal`: the shell's, which forms borrow. */
export async function clientFor(
  cli: CliArguments,
  output: Output,
  environment: Environment,
  formTerminal?: FormTerminal,
): Promise<ServerClient> {
  const handlers: ClientHandlers = { elicitation: elicitationHandler(output, formTerminal) };
  if (cli.roots.length > 0) handlers.roots = rootsHandler(cli.roots);
  const transport = await transportFromArguments(cli, environment.env, (text) =>
    output.err(output.policy.line(text)),
  );
  const { name } = messageContextOf(cli);
  const wait = new AuthorizationWait();
  if (transport.type === 'http' && URL.canParse(String(transport.url))) {
    const spec = transport as unknown as Record<string, unknown>;
    const headers = (spec.headers ?? {}) as Record<string, unknown>;
    const auth = oauthOptions(cli, name, String(spec.url), headers, output, wait, environment);
    // A config entry's `oauth` settings stay unless a flag says otherwise; the command's own token
    // store (what `logout` clears) and browser prompt replace the file's.
    if (auth !== undefined) spec.auth = { ...(spec.auth as object | undefined), ...auth };
  }
  const client = newClient(cli, {
    name,
    transport,
    protocol: cli.protocol,
    requestTimeout: cli.timeout,
    ...(cli.probeTimeout !== undefined ? { probeTimeout: cli.probeTimeout } : {}),
    ...(cli.logLevel !== undefined ? { logLevel: cli.logLevel as LogLevel } : {}),
    reconnect: { maxReconnects: 0 },
    handlers,
  });
  if (cli.logLevel !== undefined) {
    client.on('log', (message) => {
      const data = typeof message.data === 'string' ? message.data : JSON.stringify(message.data);
      const logger = message.logger ? ` ${output.policy.line(String(message.logger))}` : '';
      output.err(`[${output.policy.line(String(message.level))}${logger}] ${output.policy.line(data ?? '')}`);
    });
  }
  return { client, http: transport.type === 'http', authorizationWait: wait };
}

/**
 * The Client, with the library's option names in its ConfigErrors put in the command's words
 * for a server given on the command line (a config entry's errors name the file already).
 */
function newClient(cli: CliArguments, options: ClientOptions): Client {
  try {
    return new Client(options);
  } catch (error) {
    if (!(error instanceof ConfigError) || cli.config !== undefined) throw error;
    const message = error.message
      .replace(/^transport\.url\b/, `the URL ${cli.url}`)
      .replace(/set allowInsecure: true/, 'pass --allow-insecure')
      .replace(/^transport\.headers\.([^\s:]+)(:?)/, '--header $1$2')
      .replace(/ from transport\.headers$/, '');
    throw new ConfigError(error.key, message, { cause: error });
  }
}

/**
 * Connects within --connect-timeout (spawn, era detection, handshake). A server that fails is
 * not started a third time: the client makes one attempt (`maxReconnects: 0`), in which the era
 * detection may start it once more when it died on the probe.
 */
export async function connectWithin(
  { client, http, authorizationWait }: ServerClient,
  cli: CliArguments,
  stopper: Stopper,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let left = cli.connectTimeout;
  let since = performance.now();
  let expire: () => void = () => {};
  const deadline = new Promise<never>((_, reject) => {
    expire = () =>
      reject(
        new CliTimeout(
          `the server was not ready within ${cli.connectTimeout} ms (--connect-timeout): it may not be an MCP server` +
            `${http ? ' at that URL' : ' on stdio'}, or it needs longer to start (raise --connect-timeout)`,
        ),
      );
    timer = setTimeout(expire, left);
  });
  deadline.catch(() => {});
  // The clock stands still while the user is away authorizing in a browser.
  const stopWatching = authorizationWait.onChange((waiting) => {
    clearTimeout(timer);
    if (waiting) left = Math.max(0, left - (performance.now() - since));
    else {
      since = performance.now();
      timer = setTimeout(expire, left);
    }
  });
  try {
    await stopper.race(Promise.race([client.connect(), deadline]));
  } catch (error) {
    // The library names its own option (protocol: 'auto'); the command names its flags.
    if (
      cli.protocol === 'modern' &&
      error instanceof UnsupportedProtocolVersionError &&
      error.supported.length === 0
    ) {
      throw new Unsupported(
        'the server does not speak the modern era (it speaks only the legacy era): ' +
          'use --protocol auto or --protocol legacy',
        { cause: error },
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
    stopWatching();
  }
}

/**
 * Options for every request: the run's abort signal (with `signal`, one shell command's own),
 * --timeout restarted by progress, --max-time.
 */
export function requestOptions(
  cli: CliArguments,
  stopper: Stopper,
  signal?: AbortSignal,
  onProgress: RequestOptions['onProgress'] = () => {},
): RequestOptions {
  return {
    signal: signal ? AbortSignal.any([stopper.controller.signal, signal]) : stopper.controller.signal,
    timeout: cli.timeout,
    resetTimeoutOnProgress: true,
    onProgress,
    ...(cli.maxTime !== undefined ? { maxTotalTimeout: cli.maxTime } : {}),
  };
}
