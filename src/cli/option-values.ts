import { LOG_LEVELS, MAX_TIMER_MS } from '../index.js';
import type { CliArguments } from './cli-arguments.js';
import { UsageProblem } from './exit-codes.js';

/** An environment variable's name, as --pass-env and --client-secret-env take it. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `KEY=VALUE` (--arg, --env). */
export function pair(value: string, option: string, example: string): [string, string] {
  const at = value.indexOf('=');
  if (at <= 0)
    throw new UsageProblem(
      `${option} takes KEY=VALUE (e.g. ${option} ${example}), got ${JSON.stringify(value)}`,
    );
  return [value.slice(0, at), value.slice(at + 1)];
}

/** `--header 'Name: value'` (curl's form). The value is not shown in the message: it may be a token. */
export function headerPair(value: string): [string, string] {
  const at = value.indexOf(':');
  const name = at > 0 ? value.slice(0, at).trim() : '';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
    throw new UsageProblem(
      `--header takes 'Name: value' (e.g. --header 'X-Api-Key: ...'); got one without a valid name before the colon`,
    );
  }
  return [name, value.slice(at + 1).trim()];
}

/** A count or a duration; at most 2^31-1, the longest delay a Node timer takes. */
export function wholeNumber<Fallback extends number | undefined>(
  option: string,
  value: string | undefined,
  fallback: Fallback,
  min: number,
): number | Fallback {
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const unit = option.endsWith('bytes') || option === '--stderr-tail' ? '' : ' of milliseconds';
  if (!Number.isSafeInteger(number) || number < min || number > MAX_TIMER_MS) {
    throw new UsageProblem(
      `${option} takes a whole number${unit} ${min === 0 ? '>= 0' : '>= 1'}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

export function grantOf(grant: string | undefined): CliArguments['grant'] {
  if (
    grant !== undefined &&
    grant !== 'authorization_code' &&
    grant !== 'client_credentials' &&
    grant !== 'jwt_bearer'
  ) {
    throw new UsageProblem(
      `--grant takes authorization_code, client_credentials or jwt_bearer, got ${JSON.stringify(grant)}`,
    );
  }
  return grant;
}

export function checkClientSecretEnv(name: string | undefined): void {
  if (name !== undefined && !VARIABLE_NAME.test(name)) {
    throw new UsageProblem(
      '--client-secret-env takes the name of a variable that holds the secret (e.g. --client-secret-env MCP_CLIENT_SECRET), not the secret itself',
    );
  }
}

export function protocolOf(protocol = 'auto'): CliArguments['protocol'] {
  if (protocol !== 'auto' && protocol !== 'modern' && protocol !== 'legacy') {
    throw new UsageProblem(`--protocol takes auto, modern or legacy, got ${JSON.stringify(protocol)}`);
  }
  return protocol;
}

export function checkLogLevel(level: string | undefined): void {
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageProblem(`--log-level takes one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
  }
}

export function checkPassEnv(names: readonly string[]): void {
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) {
      throw new UsageProblem(
        `--pass-env takes a variable name (e.g. --pass-env GITHUB_TOKEN), got ${JSON.stringify(name)}`,
      );
    }
  }
}
