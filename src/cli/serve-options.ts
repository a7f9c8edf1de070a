import { isIP } from 'node:net';
import { MAX_TIMER_MS } from '../index.js';
import { UsageProblem } from './exit-codes.js';
import type { OptionValues } from './option-table.js';

/** `serve`'s own flags, checked. */
export interface ServeFlags {
  /** `--http <host:port>`: Streamable HTTP instead of stdio. */
  readonly http: { readonly host: string; readonly port: number } | undefined;
  /** `--allow <glob>` on pooled tool names (repeatable). */
  readonly allow: readonly string[];
  /** `--deny <glob>` on pooled tool names (repeatable). */
  readonly deny: readonly string[];
  /** `--token-env <VAR>`: the variable holding the bearer token HTTP hosts must send. */
  readonly tokenEnv: string | undefined;
  /** `--allow-host <name>`: a Host/Origin name accepted besides the loopback ones (repeatable). */
  readonly allowHosts: readonly string[];
  /** `--max-body-bytes`: largest HTTP request body. */
  readonly maxBodyBytes: number;
  /** `--max-in-flight`: HTTP requests handled at once. */
  readonly maxInFlight: number;
}

const SERVE_ONLY = [
  'http',
  'allow',
  'deny',
  'token-env',
  'allow-host',
  'max-body-bytes',
  'max-in-flight',
] as const;
const HTTP_ONLY = ['token-env', 'allow-host', 'max-body-bytes', 'max-in-flight'] as const;

/** A loopback address by its spelling: what `--http` may bind without a token. */
export function isLoopbackBind(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** `serve`'s flags, or undefined for another command (which may not give them). */
export function serveFlags(command: string, values: OptionValues): ServeFlags | undefined {
  if (command !== 'serve') {
    const given = SERVE_ONLY.filter((flag) => values[flag] !== undefined);
    if (given.length > 0) throw new UsageProblem(`--${given[0]} is for serve`);
    return undefined;
  }
  if (values.json === true)
    throw new UsageProblem('--json is not for serve: its stdout is the MCP connection');
  const http = values.http === undefined ? undefined : hostPort(values.http);
  if (http === undefined) {
    const given = HTTP_ONLY.filter((flag) => values[flag] !== undefined);
    if (given.length > 0) throw new UsageProblem(`--${given[0]} is for serve --http <host:port>`);
  }
  const tokenEnv = values['token-env'];
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    throw new UsageProblem(
      '--token-env takes the name of a variable that holds the token (e.g. --token-env GATEWAY_TOKEN), not the token itself',
    );
  }
  if (http !== undefined && !isLoopbackBind(http.host) && tokenEnv === undefined) {
    throw new UsageProblem(
      `--http ${values.http} listens beyond this machine: give --token-env <VAR>, a variable holding the bearer token every host must send (or bind 127.0.0.1)`,
    );
  }
  return {
    http,
    allow: values.allow ?? [],
    deny: values.deny ?? [],
    tokenEnv,
    allowHosts: values['allow-host'] ?? [],
    maxBodyBytes: count('--max-body-bytes', values['max-body-bytes'], 4 * 1024 * 1024),
    maxInFlight: count('--max-in-flight', values['max-in-flight'], 64),
  };
}

/** `host:port`, `[::1]:port` or `:port` (loopback). */
function hostPort(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) {
    throw new UsageProblem(
      `--http takes <host:port> (e.g. --http 127.0.0.1:8808, or :0 for a free loopback port), got ${JSON.stringify(value)}`,
    );
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

function count(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_TIMER_MS) {
    throw new UsageProblem(`${option} takes a whole number >= 1, got ${JSON.stringify(value)}`);
  }
  return number;
}
