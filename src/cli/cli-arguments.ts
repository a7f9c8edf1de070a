import type { ToolFormat } from './llm-commands.js';
import type { ServeFlags } from './serve-options.js';

/** The commands, in the order --help lists them. */
export const COMMANDS = [
  'inspect',
  'tools',
  'resources',
  'prompts',
  'call',
  'read',
  'prompt',
  'servers',
  'search',
  'complete',
  'watch',
  'shell',
  'logout',
  'serve',
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** A command line, parsed and checked: what every part of the command works from. */
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
  /** tools: `--format <provider>`, the definitions as that model provider takes them. */
  format: ToolFormat | undefined;
  /** search: `--limit <n>`, most matches (default 10). */
  limit: number | undefined;
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
  grant: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | undefined;
  /** OAuth: `--assertion-file PATH`, the workload's JWT for `--grant jwt_bearer`, read when a token is needed. */
  assertionFile: string | undefined;
  /** OAuth: `--scope` (repeatable). */
  scopes: string[];
  /** OAuth: `--dpop`, DPoP-bound tokens even where the authorization server does not advertise DPoP. */
  dpop: boolean;
  /**
   * OAuth consent: `wait` prints the URL and waits for the redirect (the default), `open` also
   * hands the URL to the system's browser (`--open`), `never` fails at once (`--no-login`).
   */
  login: 'wait' | 'open' | 'never';
  /** serve's own flags (undefined for the other commands). */
  serve: ServeFlags | undefined;
}

/**
 * What the command reads from its process, once, in main.ts: the functions that decide by the
 * platform or by a variable take it from here, so that a test can give them another.
 */
export interface Environment {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}
