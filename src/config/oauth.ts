import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { OAUTH_GRANTS, type OAuthGrant, type OAuthOptions } from '../auth/options.js';
import { FileTokenStore } from '../auth/token-store.js';
import { ConfigError } from '../errors.js';
import { Secret } from '../secret.js';
import { describe } from '../validate.js';
import { expandHome } from './home.js';
import { joinParts, type Part } from './interpolate.js';

/**
 * An HTTP entry's `oauth` object, checked, with its strings expanded except `${input:id}`:
 * Claude Code's keys (`clientId`, `callbackPort`, `scopes`) and the Client's OAuth options.
 */
export interface OAuthTemplate {
  /** String options; `clientSecret`, `privateKey` and `assertion` become Secrets. */
  readonly strings: Array<[StringKey, Part[]]>;
  readonly scopes: Part[][] | undefined;
  readonly callbackPort: number | undefined;
  readonly numbers: Array<['authorizationTimeout' | 'requestTimeout', number]>;
  readonly allowPrivateNetwork: boolean | undefined;
  readonly dpop: boolean | undefined;
  /** Undefined: in memory (the Client's default, or the host's `oauth.store`). */
  readonly tokenFile: Part[] | undefined;
  /** `jwt_bearer`: a file holding the workload's JWT, read again whenever a token is due. */
  readonly assertionFile: Part[] | undefined;
  /** `enterprise`: a file holding the user's ID token, read again whenever the grant is redone. */
  readonly idTokenFile: Part[] | undefined;
}

const STRING_KEYS = [
  'grant',
  'clientId',
  'clientSecret',
  'privateKey',
  'assertion',
  'signingAlgorithm',
  'issuer',
  'clientMetadataUrl',
  'redirectUrl',
  'clientName',
  'idToken',
  'idpTokenEndpoint',
  'idpIssuer',
  'idpClientId',
  'idpClientSecret',
] as const;
type StringKey = (typeof STRING_KEYS)[number];
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'clientSecret',
  'privateKey',
  'assertion',
  'idToken',
  'idpClientSecret',
]);
const NUMBER_KEYS = ['authorizationTimeout', 'requestTimeout'] as const;
/** Keys other hosts write that have no conduit-mcp setting: named in the warnings, not refused. */
const IGNORED: Record<string, string> = {
  authServerMetadataUrl:
    'conduit-mcp finds the authorization server from the resource metadata (RFC 9728, then RFC 8414)',
};
export const OAUTH_KEYS = [
  ...STRING_KEYS,
  ...NUMBER_KEYS,
  'scopes',
  'callbackPort',
  'allowPrivateNetwork',
  'dpop',
  'tokenStore',
  'assertionFile',
  'idTokenFile',
];

interface Reader {
  readonly file: string;
  readonly text: (value: unknown, at: string) => Part[];
  readonly warnings: string[];
}

/** Checks `oauth` (at `key`). Throws ConfigError naming `<file>: <key>.<option>`. */
export function readOAuth(raw: unknown, key: string, { file, text, warnings }: Reader): OAuthTemplate {
  const fail = (at: string, message: string): never => {
    throw new ConfigError(at, `${file}: ${at}: ${message}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    fail(
      key,
      `must be an object of OAuth settings (clientId, clientSecret, scopes, ...), got ${describe(raw)}`,
    );
  }
  const input = raw as Record<string, unknown>;
  for (const name of Object.keys(input)) {
    if (OAUTH_KEYS.includes(name)) continue;
    if (name in IGNORED) {
      warnings.push(`${file}: ${key}.${name} is not used (ignored): ${IGNORED[name]}`);
      continue;
    }
    fail(`${key}.${name}`, `is not an OAuth setting; the settings are ${OAUTH_KEYS.join(', ')}`);
  }
  const strings: OAuthTemplate['strings'] = [];
  for (const name of STRING_KEYS) {
    if (input[name] !== undefined) strings.push([name, text(input[name], `${key}.${name}`)]);
  }
  const grant = input.grant;
  if (grant !== undefined && !OAUTH_GRANTS.includes(grant as OAuthGrant)) {
    fail(
      `${key}.grant`,
      `must be ${OAUTH_GRANTS.map((name) => `"${name}"`).join(', ')}, got ${describe(grant)}`,
    );
  }
  let scopes: Part[][] | undefined;
  if (typeof input.scopes === 'string') {
    // Claude Code writes one space-separated string.
    scopes = input.scopes
      .split(' ')
      .filter(Boolean)
      .map((scope) => text(scope, `${key}.scopes`));
  } else if (Array.isArray(input.scopes)) {
    scopes = input.scopes.map((scope, index) => text(scope, `${key}.scopes[${index}]`));
  } else if (input.scopes !== undefined) {
    fail(
      `${key}.scopes`,
      `must be an array of scope names or one space-separated string, got ${describe(input.scopes)}`,
    );
  }
  const port = input.callbackPort;
  if (port !== undefined && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) {
    fail(`${key}.callbackPort`, `must be a port number (1 to 65535), got ${describe(port)}`);
  }
  if (port !== undefined && input.redirectUrl !== undefined) {
    fail(`${key}.callbackPort`, 'sets the redirect URL, and so does redirectUrl; keep one of the two');
  }
  if (input.assertionFile !== undefined && input.assertion !== undefined) {
    fail(`${key}.assertionFile`, 'gives the assertion, and so does assertion; keep one of the two');
  }
  if (input.idTokenFile !== undefined && input.idToken !== undefined) {
    fail(`${key}.idTokenFile`, 'gives the ID token, and so does idToken; keep one of the two');
  }
  const numbers: OAuthTemplate['numbers'] = [];
  for (const name of NUMBER_KEYS) {
    const value = input[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 1) {
      fail(`${key}.${name}`, `must be a whole number of ms, at least 1, got ${describe(value)}`);
    }
    numbers.push([name, value as number]);
  }
  const allow = input.allowPrivateNetwork;
  if (allow !== undefined && typeof allow !== 'boolean') {
    fail(`${key}.allowPrivateNetwork`, `must be true or false, got ${describe(allow)}`);
  }
  const dpop = input.dpop;
  if (dpop !== undefined && typeof dpop !== 'boolean') {
    fail(`${key}.dpop`, `must be true or false, got ${describe(dpop)}`);
  }
  return {
    strings,
    scopes,
    callbackPort: port as number | undefined,
    numbers,
    allowPrivateNetwork: allow as boolean | undefined,
    dpop: dpop as boolean | undefined,
    tokenFile: readTokenStore(input.tokenStore, `${key}.tokenStore`, text, fail),
    assertionFile:
      input.assertionFile === undefined ? undefined : text(input.assertionFile, `${key}.assertionFile`),
    idTokenFile: input.idTokenFile === undefined ? undefined : text(input.idTokenFile, `${key}.idTokenFile`),
  };
}

function readTokenStore(
  value: unknown,
  at: string,
  text: Reader['text'],
  fail: (at: string, message: string) => never,
): Part[] | undefined {
  if (value === undefined || value === 'memory') return undefined;
  const file = (value as { file?: unknown } | null)?.file;
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1
  ) {
    if (typeof file === 'string' && file !== '') return text(file, `${at}.file`);
  }
  return fail(
    at,
    `must be "memory" or { "file": "<path>" } (a JSON file kept 0600, relative to this config file), got ${describe(value)}`,
  );
}

/** The Client's OAuth options, once every input is answered: secrets as Secrets, the token file opened. */
export function buildOAuth(
  template: OAuthTemplate,
  answers: ReadonlyMap<string, string>,
  directory: string,
): OAuthOptions {
  const options: Record<string, unknown> = {};
  for (const [name, parts] of template.strings) {
    const value = joinParts(parts, answers);
    options[name] = SECRET_KEYS.has(name) ? new Secret(value) : value;
  }
  if (template.scopes) options.scopes = template.scopes.map((parts) => joinParts(parts, answers));
  if (template.callbackPort !== undefined) {
    options.redirectUrl = `http://localhost:${template.callbackPort}/callback`;
  }
  for (const [name, value] of template.numbers) options[name] = value;
  if (template.allowPrivateNetwork !== undefined) options.allowPrivateNetwork = template.allowPrivateNetwork;
  if (template.dpop !== undefined) options.dpop = template.dpop;
  if (template.tokenFile) {
    const file = expandHome(joinParts(template.tokenFile, answers));
    options.store = new FileTokenStore(path.resolve(directory, file));
  }
  if (template.assertionFile) {
    const file = path.resolve(directory, expandHome(joinParts(template.assertionFile, answers)));
    options.assertion = () => readTokenFile(file, 'assertion', "the workload's JWT");
  }
  if (template.idTokenFile) {
    const file = path.resolve(directory, expandHome(joinParts(template.idTokenFile, answers)));
    options.idToken = () => readTokenFile(file, 'ID token', "the user's ID token");
  }
  return options as OAuthOptions;
}

/** A token kept in a file (a rotated one is picked up), trimmed; an empty file is an error. */
async function readTokenFile(file: string, kind: string, holds: string): Promise<string> {
  const token = (await readFile(file, 'utf8')).trim();
  if (token === '') throw new Error(`the ${kind} file ${file} is empty; it should hold ${holds}`);
  return token;
}

/** The `${input:id}` parts of an `oauth` object. */
export function oauthParts(template: OAuthTemplate): Part[][] {
  return [
    ...template.strings.map(([, parts]) => parts),
    ...(template.scopes ?? []),
    template.tokenFile ?? [],
    template.assertionFile ?? [],
    template.idTokenFile ?? [],
  ];
}
