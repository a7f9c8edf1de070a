import { isSecret, revealOption } from '../../secret.js';
import type { EnvValue } from './options.js';

/** The only variables a server inherits from this process on POSIX. */
export const POSIX_INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/** The only variables a server inherits from this process on Windows. */
export const WINDOWS_INHERITED_ENV = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
] as const;

type Env = Record<string, string | undefined>;

const caseInsensitive = (platform: NodeJS.Platform) => platform === 'win32';

/** Reads a variable the way the platform does (Windows names ignore case). */
export function getVariable(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  if (!caseInsensitive(platform)) return env[name];
  const upper = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) if (key.toUpperCase() === upper) return value;
  return undefined;
}

/**
 * The allowlisted part of `parentEnv`. A value starting with `()` is dropped: bash would import
 * it as a function definition (the Shellshock class of bug).
 */
export function inheritedEnvironment(parentEnv: Env, platform: NodeJS.Platform): Record<string, string> {
  const names = platform === 'win32' ? WINDOWS_INHERITED_ENV : POSIX_INHERITED_ENV;
  const result: Record<string, string> = {};
  for (const name of names) {
    const value = getVariable(parentEnv, name, platform);
    if (value !== undefined && !value.startsWith('()')) result[name] = value;
  }
  return result;
}

/**
 * The server's whole environment: the inherited allowlist, then `userEnv` on top (it wins).
 * Secrets are exposed here, and only here; a function Secret is called on each call (one that
 * throws is a ConfigError naming `owner.server` and the variable's option key).
 */
export async function buildEnvironment(
  parentEnv: Env,
  userEnv: ReadonlyArray<readonly [string, EnvValue]>,
  platform: NodeJS.Platform,
  owner: { readonly server?: string | undefined; readonly keyPrefix: string } = { keyPrefix: '' },
): Promise<Record<string, string>> {
  const env = inheritedEnvironment(parentEnv, platform);
  for (const [name, value] of userEnv) {
    if (caseInsensitive(platform)) {
      for (const key of Object.keys(env)) if (key.toUpperCase() === name.toUpperCase()) delete env[key];
    }
    const key = `${owner.keyPrefix ? `${owner.keyPrefix}.` : ''}env.${name}`;
    const plain = isSecret(value) ? await revealOption(value, key, owner.server) : value;
    // Node's own error for a NUL would quote the whole variable, Secret included.
    if (plain.includes('\0')) throw new TypeError(`the value of ${name} contains a NUL character`);
    env[name] = plain;
  }
  return env;
}

/**
 * The values in `env` (built by buildEnvironment) that came from a Secret of `userEnv`: what must
 * never appear in an error, even indirectly (a Secret PATH is in every "not found" message).
 */
export function secretValues(
  env: Readonly<Record<string, string>>,
  userEnv: ReadonlyArray<readonly [string, EnvValue]>,
  platform: NodeJS.Platform,
): string[] {
  const winners = new Map<string, readonly [string, EnvValue]>();
  for (const entry of userEnv) {
    winners.set(caseInsensitive(platform) ? entry[0].toUpperCase() : entry[0], entry);
  }
  const values: string[] = [];
  for (const [name, value] of winners.values()) {
    const plain = env[name];
    if (isSecret(value) && plain) values.push(plain);
  }
  // Longest first, so a secret that contains another is hidden whole.
  return values.sort((a, b) => b.length - a.length);
}
