import { ConfigError, type ConfigTransport, type LoadedConfig, loadConfigFile } from '../index.js';

/** The CLI cannot prompt for `${input:id}`: it says what to write instead. */
export function refuseInput(file: string) {
  return (request: { id: string; server: string }): never => {
    throw new ConfigError(
      'input',
      `${file}: ${request.server} uses \${input:${request.id}}, and conduit-mcp cannot ask for it; write the value or \${env:NAME} in the file`,
    );
  };
}

/** Loads `--config` with the shared loader; unknown keys are reported through `warn`. */
export function loadCliConfig(file: string, warn: (text: string) => void): LoadedConfig {
  const config = loadConfigFile(file, { input: refuseInput(file) });
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
