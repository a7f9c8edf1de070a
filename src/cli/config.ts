import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, Secret, type StdioOptions } from '../index.js';

/**
 * Reads one server from an `mcpServers` file (Claude Desktop, Cursor; VS Code's `servers` too):
 * `command`, `args`, `env`, `cwd`. Env values become Secrets, so `--verbose` never prints them.
 */
export function serverFromConfig(file: string, name: string): StdioOptions {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('--config', `--config: cannot read ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('--config', `--config: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const root = document as { mcpServers?: unknown; servers?: unknown } | null;
  const servers = (root?.mcpServers ?? root?.servers) as Record<string, unknown> | undefined;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ConfigError('--config', `--config: ${file} has no "mcpServers" object`);
  }
  const entry = servers[name] as Record<string, unknown> | undefined;
  if (entry === undefined) {
    const names = Object.keys(servers);
    throw new ConfigError(
      '--server',
      `--server: ${file} has no server ${JSON.stringify(name)}; it has ${names.length ? names.join(', ') : 'none'}`,
    );
  }
  if (typeof entry !== 'object' || entry === null) {
    throw new ConfigError(
      '--server',
      `--server: the entry ${JSON.stringify(name)} in ${file} is not an object`,
    );
  }
  if (entry.url !== undefined || (entry.type !== undefined && entry.type !== 'stdio')) {
    throw new ConfigError(
      '--server',
      `--server: ${JSON.stringify(name)} is not a stdio server; only stdio is supported`,
    );
  }
  const options: Record<string, unknown> = { command: entry.command };
  if (entry.args !== undefined) options.args = entry.args;
  if (entry.env !== undefined) {
    if (typeof entry.env !== 'object' || entry.env === null || Array.isArray(entry.env)) {
      throw new ConfigError('--server', `--server: "env" of ${JSON.stringify(name)} must be an object`);
    }
    options.env = Object.fromEntries(
      Object.entries(entry.env).map(([key, value]) => [
        key,
        typeof value === 'string' ? new Secret(value) : value,
      ]),
    );
  }
  if (entry.cwd !== undefined) {
    options.cwd = typeof entry.cwd === 'string' ? path.resolve(path.dirname(file), entry.cwd) : entry.cwd;
  }
  return options as unknown as StdioOptions;
}
