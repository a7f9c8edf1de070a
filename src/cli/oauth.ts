import { spawn } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { type OAuthOptions, Secret } from '../index.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { UsageProblem } from './exit-codes.js';
import { flagsAre, httpOnlyFlags } from './option-rules.js';
import type { Output } from './output.js';
import { configDirectoryOf, tokenStoreFor } from './token-files.js';

/**
 * While the user is away in a browser, the command's own --connect-timeout stands still: from the
 * moment the authorization URL is shown until the flow reports `authorized` or `failed` on the
 * `conduit-mcp:auth` channel (the library bounds the wait itself: `authorizationTimeout`).
 */
export class AuthorizationWait {
  #waiting = false;
  readonly #listeners = new Set<(waiting: boolean) => void>();

  onChange(listener: (waiting: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  set(waiting: boolean): void {
    if (this.#waiting === waiting) return;
    this.#waiting = waiting;
    for (const listener of this.#listeners) listener(waiting);
  }
}

/**
 * OAuth for an HTTP server, unless its headers carry an Authorization of their own (a static
 * token): tokens and registrations in the server's own file under the config directory; the
 * authorization URL printed on stderr for the user to open, the built-in loopback listener
 * catching the redirect; `--client-id`, `--client-secret-env`, `--grant`, `--scope` as given.
 */
export function oauthOptions(
  cli: CliArguments,
  server: string,
  url: string,
  headers: Readonly<Record<string, unknown>>,
  output: Output,
  wait: AuthorizationWait,
  environment: Environment,
): OAuthOptions | undefined {
  const staticToken = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  const flags = httpOnlyFlags(cli).filter((flag) => flag !== '--header' && flag !== '--allow-insecure');
  if (staticToken) {
    if (flags.length > 0) {
      throw new UsageProblem(
        `${flagsAre(flags)} for OAuth, and the server's headers already carry an Authorization (a static token); keep one of the two`,
      );
    }
    return undefined;
  }
  let clientSecret: Secret | undefined;
  if (cli.clientSecretEnv !== undefined) {
    const value = environment.env[cli.clientSecretEnv];
    if (value === undefined || value === '') {
      throw new UsageProblem(
        `--client-secret-env ${cli.clientSecretEnv}: ${cli.clientSecretEnv} is not set in this environment`,
      );
    }
    clientSecret = new Secret(value);
  }
  if (cli.grant === 'client_credentials' && cli.clientId === undefined) {
    throw new UsageProblem(
      '--grant client_credentials needs the client registered for it: --client-id <id> --client-secret-env <NAME>',
    );
  }
  if (cli.assertionFile !== undefined) readAssertion(cli.assertionFile);
  const subscription = (message: unknown) => {
    const { server: from, event } = message as { server?: string; event?: string };
    if (from === server && (event === 'authorized' || event === 'failed')) wait.set(false);
  };
  dc.subscribe('conduit-mcp:auth', subscription);
  return {
    store: tokenStoreFor(url, configDirectoryOf(environment)),
    ...(cli.grant !== undefined ? { grant: cli.grant } : {}),
    ...(cli.clientId !== undefined ? { clientId: cli.clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(cli.assertionFile !== undefined ? { assertion: async () => readAssertion(cli.assertionFile!) } : {}),
    ...(cli.scopes.length > 0 ? { scopes: cli.scopes } : {}),
    ...(cli.dpop ? { dpop: true } : {}),
    onAuthorizationUrl: async (authorizationUrl: URL) => {
      if (cli.login === 'never') {
        throw new Error(
          `--no-login: ${server} needs your authorization; run the command once without --no-login to log in (the tokens are kept for later runs)`,
        );
      }
      wait.set(true);
      output.err(
        `conduit-mcp: ${output.policy.line(server)} needs your authorization: open this URL in a browser (conduit-mcp waits for the redirect):\n  ${output.policy.line(authorizationUrl.href)}`,
      );
      if (cli.login === 'open') openInBrowser(authorizationUrl, output, environment.platform);
      return undefined;
    },
  };
}

/**
 * The workload JWT in an --assertion-file, trimmed; an unreadable or empty file is a usage problem
 * naming it. Read when the flags are checked, and again whenever a token is due.
 */
function readAssertion(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageProblem(
      `--assertion-file ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const assertion = text.trim();
  if (assertion === '')
    throw new UsageProblem(`--assertion-file ${file} is empty; it should hold the workload's JWT`);
  return assertion;
}

/**
 * `--open`: hands the URL to the system's opener, as one argument of a direct spawn (no shell, so
 * the query's `&` is data); the command still waits for the redirect as without it. A missing
 * opener is a note, not a failure: the URL is on stderr already.
 */
function openInBrowser(url: URL, output: Output, platform: NodeJS.Platform): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  const [command, ...args] =
    platform === 'darwin'
      ? ['open']
      : platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler']
        : ['xdg-open'];
  const opener = spawn(command!, [...args, url.href], { stdio: 'ignore', detached: true });
  opener.once('error', (error: NodeJS.ErrnoException) =>
    output.err(
      `conduit-mcp: could not open a browser (${command}: ${error.code ?? error.message}); open the URL above yourself`,
    ),
  );
  opener.unref();
}
