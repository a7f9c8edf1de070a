import { ConfigError, type ConfigTransport, type LoadedConfig, loadConfigFile } from '../index.js';
import { configInputs } from './config-input.js';

/** Loads `--config` with the shared loader; unknown keys are reported through `warn`. */
export function loadCliConfig(file: string, warn: (text: string) => void): LoadedConfig {
  const config = loadConfigFile(file, { input: configInputs(file) });
  for (const warning of config.warnings) warn(`conduit-mcp: warning: ${warning}`);
  return config;
}

/** One server of an `mcpServers` / `servers` file (Claude Desktop, Cursor, Claude Code, VS Code). */
export async function serverFromConfig(
  file: string,
  name: string,
  warn: (text: string) => void,
): Promise<ConfigTransport> {
  const config = loadCliConfig(file, warn);
  const entry = config.servers.find((server) => server.name === name);
  if (entry === undefined) {
    const names = config.servers.map((server) => server.name);
    throw new ConfigError(
      '--server',
      `--server: ${file} has no server ${JSON.stringify(name)}; it has ${names.length ? names.join(', ') : 'none'}`,
    );
  }
  if (entry.error) throw entry.error;
  return entry.transport();
}
