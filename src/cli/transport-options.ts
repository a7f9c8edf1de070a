import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Secret, type TransportSpec } from '../index.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { serverFromConfig } from './config.js';
import { UsageProblem } from './exit-codes.js';
import { flagsAre, httpOnlyFlags, stdioOnlyFlags } from './option-rules.js';

/**
 * The server's transport spec: a config entry (through the shared loader), the URL, or the
 * command after `--`, then the flags for that kind of server.
 */
export async function transportFromArguments(
  cli: CliArguments,
  env: Environment['env'],
  warn: (text: string) => void,
): Promise<TransportSpec> {
  const base: Record<string, unknown> =
    cli.config !== undefined
      ? { ...(await serverFromConfig(cli.config, cli.server!, warn)) }
      : cli.url !== undefined
        ? { type: 'http', url: cli.url }
        : { type: 'stdio', command: cli.serverCommand[0], args: cli.serverCommand.slice(1) };
  if (cli.maxMessageBytes !== undefined) base.maxMessageBytes = cli.maxMessageBytes;
  if (base.type === 'http') return httpTransport(base, cli);
  const httpOnly = httpOnlyFlags(cli);
  if (httpOnly.length > 0) {
    throw new UsageProblem(
      `${flagsAre(httpOnly)} for HTTP servers; ${cli.server} in ${cli.config} is a stdio server`,
    );
  }
  const extra: Array<[string, string | Secret]> = [...cli.env];
  for (const name of cli.passEnv) {
    const value = env[name];
    if (value === undefined) {
      throw new UsageProblem(`--pass-env ${name}: ${name} is not set in this environment`);
    }
    // A passed-through variable is often a token: --verbose, --trace and stderr tails never show it.
    extra.push([name, new Secret(value)]);
  }
  if (extra.length > 0) {
    const inherited = (base.env ?? {}) as Record<string, unknown>;
    base.env = { ...inherited, ...Object.fromEntries(extra) };
  }
  if (cli.cwd !== undefined) base.cwd = path.resolve(cli.cwd);
  if (cli.stderr !== undefined) {
    if (cli.stderr === 'inherit' || cli.stderr === 'discard') base.stderr = cli.stderr;
    else {
      const file = path.resolve(cli.stderr);
      const directory = path.dirname(file);
      if (!existsSync(directory) || !statSync(directory).isDirectory()) {
        throw new UsageProblem(
          `--stderr ${cli.stderr}: the directory ${directory} does not exist; create it or choose another file`,
        );
      }
      base.stderr = { file };
    }
  }
  base.stderrTail = cli.stderrTail ?? 8192;
  if (cli.maxJunkLines !== undefined) base.maxJunkLines = cli.maxJunkLines;
  return base as unknown as TransportSpec;
}

/** An HTTP server's spec with the flags: --header values (as Secrets) win over the entry's headers. */
function httpTransport(base: Record<string, unknown>, cli: CliArguments): TransportSpec {
  const stdioOnly = stdioOnlyFlags(cli);
  if (stdioOnly.length > 0) {
    throw new UsageProblem(
      `${flagsAre(stdioOnly)} for a server command (stdio); ${cli.server} in ${cli.config} is an HTTP server`,
    );
  }
  if (cli.headers.length > 0) {
    const headers = new Map<string, [string, unknown]>();
    for (const [name, value] of Object.entries((base.headers ?? {}) as Record<string, unknown>)) {
      headers.set(name.toLowerCase(), [name, value]);
    }
    for (const [name, value] of cli.headers) headers.set(name.toLowerCase(), [name, new Secret(value)]);
    base.headers = Object.fromEntries(headers.values());
  }
  if (cli.allowInsecure) base.allowInsecure = true;
  return base as unknown as TransportSpec;
}
