import { readFile, rm } from 'node:fs/promises';
import { type LogoutResult, logout as revokeAndForget, Secret, type StoredAuth } from '../index.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import { serverFromConfig } from './config.js';
import { EXIT, UsageProblem } from './exit-codes.js';
import type { Output } from './output.js';
import { configDirectoryOf, serverKey, tokenFile, tokenStoreFor } from './token-files.js';

/** What one stored entry is, in words; never a token or a secret. */
function describeEntry(entry: StoredAuth): string | undefined {
  if (entry.kind === 'client') {
    return `the client registration with ${entry.issuer} (client id ${entry.clientId})`;
  }
  if (entry.kind === 'resource') return undefined;
  return `the tokens from ${entry.issuer}${entry.refreshToken ? ' (with a refresh token)' : ''}${entry.scope ? `, scope ${entry.scope}` : ''}`;
}

const TOKEN_WORDS = { refresh_token: 'the refresh token', access_token: 'the access token' } as const;

/** The revocation, in words: which tokens the authorization server revoked, which not and why. */
function describeRevocation(result: LogoutResult): string[] {
  const words = (tokens: readonly (keyof typeof TOKEN_WORDS)[]) =>
    tokens.map((token) => TOKEN_WORDS[token]).join(' and ');
  const lines: string[] = [];
  if (result.revoked.length > 0) {
    lines.push(`conduit-mcp: revoked at ${result.issuer}: ${words(result.revoked)}`);
  }
  const reasons = new Map<string, (keyof typeof TOKEN_WORDS)[]>();
  for (const { token, reason } of result.notRevoked)
    reasons.set(reason, [...(reasons.get(reason) ?? []), token]);
  for (const [reason, tokens] of reasons)
    lines.push(`conduit-mcp: not revoked: ${words(tokens)} (${reason})`);
  return lines;
}

/**
 * Tokens stored before conduit-mcp noted which server issued them (no `resource` entry): the
 * note is added, so that they are revoked like any others. The file is this server's alone.
 */
async function noteIssuer(
  url: string,
  directory: string,
  entries: Record<string, StoredAuth>,
): Promise<void> {
  const key = `resource ${serverKey(url)}`;
  if (entries[key]) return;
  const tokens = Object.entries(entries).find(([, entry]) => entry.kind === 'tokens');
  if (!tokens) return;
  const [issuer, resource] = tokens[0].split(' ').slice(1);
  if (issuer === undefined || resource === undefined) return;
  await tokenStoreFor(url, directory).set(key, { kind: 'resource', issuer, resource });
}

/**
 * `conduit-mcp logout <url>` (or a config entry's name): revokes the server's tokens at its
 * authorization server (RFC 7009) when it can, then removes that server's token file.
 */
export async function logout(cli: CliArguments, output: Output, environment: Environment): Promise<number> {
  let url = cli.url;
  if (url === undefined) {
    const transport = await serverFromConfig(cli.config!, cli.server!, (text) =>
      output.err(output.policy.line(text)),
    );
    if (transport.type !== 'http') {
      throw new UsageProblem(
        `${cli.server} in ${cli.config} is a stdio server: conduit-mcp keeps OAuth tokens only for HTTP servers`,
      );
    }
    url = transport.url;
  }
  const server = serverKey(url);
  const directory = configDirectoryOf(environment);
  const file = tokenFile(url, directory);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (cli.json) output.out(JSON.stringify({ server, file, removed: [] }, null, 2));
    else
      output.out(
        `conduit-mcp: nothing to remove: no tokens are stored for ${server} (${file} does not exist)`,
      );
    return EXIT.ok;
  }
  let entries: Record<string, StoredAuth> = {};
  try {
    entries = (JSON.parse(text) as { entries?: Record<string, StoredAuth> }).entries ?? {};
  } catch {
    // Unreadable, and conduit-mcp's own: it goes all the same, and the message says so.
  }
  let revocation: LogoutResult | undefined;
  if (Object.values(entries).some((entry) => entry.kind === 'tokens')) {
    await noteIssuer(url, directory, entries);
    const secret = cli.clientSecretEnv !== undefined ? environment.env[cli.clientSecretEnv] : undefined;
    revocation = await revokeAndForget(url, {
      store: tokenStoreFor(url, directory),
      ...(cli.clientId !== undefined ? { clientId: cli.clientId } : {}),
      ...(secret ? { clientSecret: new Secret(secret) } : {}),
    });
  }
  await rm(file, { force: true });
  const removed = Object.values(entries)
    .map(describeEntry)
    .filter((line): line is string => line !== undefined);
  const revoked = revocation ? describeRevocation(revocation) : [];
  if (cli.json) {
    output.out(
      JSON.stringify(
        {
          server,
          file,
          ...(revocation
            ? { issuer: revocation.issuer, revoked: revocation.revoked, notRevoked: revocation.notRevoked }
            : {}),
          removed,
        },
        null,
        2,
      ),
    );
  } else if (removed.length === 0) {
    output.out(`conduit-mcp: removed ${file} (it held no readable entries) for ${server}`);
  } else {
    output.out(
      [
        `conduit-mcp: logged out of ${server}; removed from ${file}:`,
        ...removed.map((line) => `  ${line}`),
        ...revoked,
      ]
        .map((line) => output.policy.line(line))
        .join('\n'),
    );
  }
  return EXIT.ok;
}
