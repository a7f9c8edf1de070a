import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ClientHandlers, ClientPool, type LogLevel, type TransportSpec } from '../index.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { loadCliConfig } from './config.js';
import { configInputs } from './config-input.js';
import { EXIT, UsageProblem } from './exit-codes.js';
import { AuthorizationWait, oauthOptions } from './oauth.js';
import type { Output } from './output.js';
import type { Stopper } from './stop.js';
import { configDirectoryOf, tokenStoreFor } from './token-files.js';
import { transportFromArguments } from './transport-options.js';

/**
 * `conduit-mcp serve`: the servers of a config file (or one command or URL) as one MCP server, over
 * stdio or Streamable HTTP. The gateway and the MCP server library load only here.
 */
export async function serve(
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  environment: Environment,
): Promise<number> {
  const flags = cli.serve!;
  const say = (text: string) => output.err(`conduit-mcp serve: ${output.policy.line(text)}`);
  const token = flags.tokenEnv === undefined ? undefined : environment.env[flags.tokenEnv];
  if (flags.tokenEnv !== undefined && !token) {
    throw new UsageProblem(
      `--token-env ${flags.tokenEnv}: ${flags.tokenEnv} is not set (or empty) in this environment`,
    );
  }
  const makePool = await poolMaker(cli, output, environment, say);
  const [{ runGateway }, { ToolFilter, configFilterRules }] = await Promise.all([
    import('../serve/run.js'),
    import('../serve/filters.js'),
  ]);
  const filter = new ToolFilter(
    { allow: flags.allow, deny: flags.deny },
    cli.config !== undefined ? configFilterRules(cli.config) : new Map(),
  );
  const why = await runGateway({
    makePool,
    settings: {
      info: { name: 'conduit-mcp', version: packageVersion() },
      filter,
      requestTimeout: cli.timeout,
      maxTime: cli.maxTime,
      ...(cli.config === undefined ? { soleServer: soleServerName(cli) } : {}),
    },
    http:
      flags.http === undefined
        ? undefined
        : {
            ...flags.http,
            token,
            allowedHosts: flags.allowHosts,
            maxBodyBytes: flags.maxBodyBytes,
            maxInFlight: flags.maxInFlight,
          },
    signal: stopper.controller.signal,
    say,
  });
  if (why === 'stopped' && stopper.reason) throw stopper.reason;
  return why === 'host-broken' ? EXIT.protocol : EXIT.ok;
}

type PoolMaker = (handlers: ClientHandlers) => ClientPool;

/** The pool: every server of the config file, or the one server of the command line under its own tool names. */
async function poolMaker(
  cli: CliArguments,
  output: Output,
  environment: Environment,
  say: (text: string) => void,
): Promise<PoolMaker> {
  const common = {
    requestTimeout: cli.timeout,
    protocol: cli.protocol,
    ...(cli.probeTimeout !== undefined ? { probeTimeout: cli.probeTimeout } : {}),
    ...(cli.logLevel !== undefined ? { logLevel: cli.logLevel as LogLevel } : {}),
    connectTimeout: cli.connectTimeout,
  };
  if (cli.config !== undefined) {
    const file = cli.config;
    loadCliConfig(file, () => {});
    const tokens = configDirectoryOf(environment);
    return (handlers) =>
      ClientPool.fromConfigFile(file, {
        input: configInputs(file),
        oauth: {
          store: (_server, url) => tokenStoreFor(url, tokens),
          onAuthorizationUrl: async (url, server) => {
            if (cli.login === 'never') {
              throw new Error(
                `--no-login: ${server} needs your authorization; run conduit-mcp tools --config ${file} --server ${server} once to log in (the tokens are kept)`,
              );
            }
            say(`${server} needs your authorization: open this URL in a browser:\n  ${url.href}`);
            return undefined;
          },
        },
        client: { ...common, handlers },
        startTimeout: cli.connectTimeout,
      });
  }
  const transport = (await transportFromArguments(cli, environment.env, say)) as TransportSpec & {
    url?: string;
    headers?: Record<string, unknown>;
    auth?: object;
  };
  const name = soleServerName(cli);
  if (transport.type === 'http' && transport.url !== undefined) {
    const auth = oauthOptions(
      cli,
      name,
      transport.url,
      transport.headers ?? {},
      output,
      new AuthorizationWait(),
      environment,
    );
    if (auth !== undefined) transport.auth = { ...transport.auth, ...auth };
  }
  return (handlers) =>
    new ClientPool({
      servers: { [name]: { ...common, transport, handlers } },
      // One server: its tools keep their own names (made safe for model APIs all the same).
      toolName: (_server, tool) => tool,
      startTimeout: cli.connectTimeout,
    });
}

/** The name of the one server of the command line (its URL's host, or its command's base name). */
function soleServerName(cli: CliArguments): string {
  return cli.url !== undefined ? new URL(cli.url).host : path.basename(cli.serverCommand[0] ?? 'server');
}

/** conduit-mcp's version, the gateway's serverInfo.version. */
function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
