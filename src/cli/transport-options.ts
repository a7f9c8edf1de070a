import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Secret, type TransportSpec } from '../index.js';
import { type CliArguments, UsageProblem } from './args.js';
import { serverFromConfig } from './config.js';

/**
 * The server's transport spec: a config entry (through the shared loader) or the command after
 * `--`, then the flags, which apply to stdio servers.
 */
export async function transportFromArguments(
  cli: CliArguments,
  warn: (text: string) => void = () => {},
): Promise<TransportSpec> {
  const base: Record<string, unknown> =
    cli.config !== undefined
      ? { ...(await serverFromConfig(cli.config, cli.server!, warn)) }
      : { type: 'stdio', command: cli.serverCommand[0], args: cli.serverCommand.slice(1) };
  if (base.type !== 'stdio') return base as unknown as TransportSpec;
  const extra: Array<[string, string | Secret]> = [...cli.env];
  for (const name of cli.passEnv) {
    const value = process.env[name];
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
  base.stderrTail = cli.stderrTail;
  if (cli.maxMessageBytes !== undefined) base.maxMessageBytes = cli.maxMessageBytes;
  if (cli.maxJunkLines !== undefined) base.maxJunkLines = cli.maxJunkLines;
  return base as unknown as TransportSpec;
}
