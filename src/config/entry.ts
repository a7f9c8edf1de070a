import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OAuthOptions } from '../auth/options.js';
import { ConfigError } from '../errors.js';
import { Secret } from '../secret.js';
import { describe } from '../validate.js';
import { parseEnvFile } from './env-file.js';
import { inputsOf, interpolate, joinParts, type Part, type VariableScope } from './interpolate.js';
import { buildOAuth, type OAuthTemplate, oauthParts, readOAuth } from './oauth.js';

/** A transport spec read from a config file: stdio, or HTTP (`http`, `streamable-http` and `sse` entries). */
export type ConfigTransport =
  | {
      /** A local server, spawned. */
      readonly type: 'stdio';
      /** The executable, variables expanded. */
      readonly command: string;
      /** Its arguments, variables expanded. */
      readonly args: string[];
      /** The entry's `env`, each value a Secret. */
      readonly env: Record<string, Secret>;
      /** The working directory, if the entry sets one. */
      readonly cwd?: string;
    }
  | {
      /** A remote server over Streamable HTTP (or the legacy HTTP+SSE transport). */
      readonly type: 'http';
      /** Its endpoint. */
      readonly url: string;
      /** The entry's `headers`, each value a Secret. */
      readonly headers: Record<string, Secret>;
      /** From the entry's `oauth` object. */
      readonly auth?: OAuthOptions;
    };

/** One entry, checked, with its strings expanded except the `${input:id}` parts. */
export type EntryTemplate =
  | {
      readonly type: 'stdio';
      readonly command: Part[];
      readonly args: Part[][];
      readonly env: Array<[string, Part[]]>;
      readonly cwd: Part[] | undefined;
    }
  | {
      readonly type: 'http';
      readonly url: Part[];
      readonly headers: Array<[string, Part[]]>;
      readonly oauth: OAuthTemplate | undefined;
    };

export const ENTRY_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'envFile',
  'cwd',
  'url',
  'serverUrl',
  'headers',
  'oauth',
  'disabled',
  'lazy',
] as const;
const TYPES: Record<string, 'stdio' | 'http'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'http',
};

interface EntryContext {
  readonly file: string;
  readonly directory: string;
  readonly scope: VariableScope;
  /** Where keys that are read but not used are reported. */
  readonly warnings: string[];
}

/** Checks one entry and expands its variables. Throws ConfigError naming `<file>: <key>`. */
export function readEntry(raw: Record<string, unknown>, key: string, context: EntryContext): EntryTemplate {
  const { file, scope } = context;
  const fail = (at: string, message: string): never => {
    throw new ConfigError(at, `${file}: ${at}: ${message}`);
  };
  const text = (value: unknown, at: string): Part[] => {
    if (typeof value !== 'string') fail(at, `must be a string, got ${describe(value)}`);
    return interpolate(value as string, scope, file, at);
  };
  const stringMap = (value: unknown, at: string): Array<[string, Part[]]> => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      fail(at, `must be an object of strings, got ${describe(value)}`);
    }
    return Object.entries(value as object).map(([name, item]) => [name, text(item, `${at}.${name}`)]);
  };
  const url = raw.url ?? raw.serverUrl;
  const declared = raw.type;
  if (declared !== undefined && (typeof declared !== 'string' || !(declared in TYPES))) {
    fail(`${key}.type`, `must be "stdio", "http", "streamable-http" or "sse", got ${describe(declared)}`);
  }
  const type = declared !== undefined ? TYPES[declared as string]! : url !== undefined ? 'http' : 'stdio';
  if (type === 'http') {
    if (raw.command !== undefined) {
      fail(`${key}.command`, 'an HTTP entry (with "url") takes no "command"; keep one of the two');
    }
    if (url === undefined) fail(`${key}.url`, `is required for a ${String(declared)} entry`);
    const urlKey = raw.url !== undefined ? `${key}.url` : `${key}.serverUrl`;
    return {
      type: 'http',
      url: text(url, urlKey),
      headers: raw.headers === undefined ? [] : stringMap(raw.headers, `${key}.headers`),
      oauth:
        raw.oauth === undefined
          ? undefined
          : readOAuth(raw.oauth, `${key}.oauth`, { file, text, warnings: context.warnings }),
    };
  }
  if (url !== undefined)
    fail(`${key}.url`, 'a stdio entry takes no "url"; for a remote server set "type": "http"');
  if (raw.oauth !== undefined) {
    fail(
      `${key}.oauth`,
      'is for HTTP entries (with "url"); a stdio server gets its credentials through "env"',
    );
  }
  if (raw.command === undefined) {
    fail(`${key}.command`, 'is required: the executable that runs the server (or "url" for a remote one)');
  }
  let args: Part[][] = [];
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args))
      fail(`${key}.args`, `must be an array of strings, got ${describe(raw.args)}`);
    args = (raw.args as unknown[]).map((item, index) => text(item, `${key}.args[${index}]`));
  }
  const env = new Map<string, Part[]>();
  if (raw.envFile !== undefined) {
    for (const [name, value] of readEnvFile(raw.envFile, `${key}.envFile`, context, fail))
      env.set(name, [value]);
  }
  if (raw.env !== undefined)
    for (const [name, value] of stringMap(raw.env, `${key}.env`)) env.set(name, value);
  return {
    type: 'stdio',
    command: text(raw.command, `${key}.command`),
    args,
    env: [...env],
    cwd: raw.cwd === undefined ? undefined : text(raw.cwd, `${key}.cwd`),
  };
}

function readEnvFile(
  value: unknown,
  at: string,
  context: EntryContext,
  fail: (at: string, message: string) => never,
): Array<[string, string]> {
  const { file, scope, directory } = context;
  if (typeof value !== 'string') fail(at, `must be a path (a string), got ${describe(value)}`);
  const parts = interpolate(value as string, { ...scope, canResolveInputs: false }, file, at);
  const target = path.resolve(directory, joinParts(parts, new Map()));
  let content: string;
  try {
    content = readFileSync(target, 'utf8');
  } catch (error) {
    fail(at, `cannot read ${target}: ${(error as Error).message}`);
  }
  const parsed = parseEnvFile(content);
  if ('badLine' in parsed) fail(at, `line ${parsed.badLine} of ${target} is not KEY=value (nor a # comment)`);
  return parsed.pairs;
}

/** Every `${input:id}` an entry uses, in order, each once. */
export function entryInputs(template: EntryTemplate): string[] {
  const all =
    template.type === 'stdio'
      ? [template.command, ...template.args, ...template.env.map(([, v]) => v), template.cwd ?? []]
      : [
          template.url,
          ...template.headers.map(([, v]) => v),
          ...(template.oauth ? oauthParts(template.oauth) : []),
        ];
  return [...new Set(all.flatMap(inputsOf))];
}

/** The transport spec, once every input is answered. `env` and `headers` values become Secrets. */
export function buildTransport(
  template: EntryTemplate,
  answers: ReadonlyMap<string, string>,
  directory: string,
): ConfigTransport {
  const join = (parts: Part[]) => joinParts(parts, answers);
  const secrets = (pairs: Array<[string, Part[]]>) =>
    Object.fromEntries(pairs.map(([name, parts]) => [name, new Secret(join(parts))]));
  if (template.type === 'http') {
    return {
      type: 'http',
      url: join(template.url),
      headers: secrets(template.headers),
      ...(template.oauth ? { auth: buildOAuth(template.oauth, answers, directory) } : {}),
    };
  }
  return {
    type: 'stdio',
    command: join(template.command),
    args: template.args.map(join),
    env: secrets(template.env),
    ...(template.cwd ? { cwd: path.resolve(directory, join(template.cwd)) } : {}),
  };
}
