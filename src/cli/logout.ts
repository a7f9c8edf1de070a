import { readFile, rm } from 'node:fs/promises';
import type { StoredAuth } from '../index.js';
import { type CliArguments, UsageProblem } from './args.js';
import { serverFromConfig } from './config.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { serverKey, tokenFile } from './token-files.js';

/** What one stored entry is, in words; never a token or a secret. */
function describeEntry(entry: StoredAuth): string {
  if (entry.kind === 'client') {
    return `the client registration with ${entry.issuer} (client id ${entry.clientId})`;
  }
  if (entry.kind === 'resource') return `the note that its tokens come from ${entry.issuer}`;
  return `the tokens from ${entry.issuer}${entry.refreshToken ? ' (with a refresh token)' : ''}${entry.scope ? `, scope ${entry.scope}` : ''}`;
}

/** `conduit-mcp logout <url>` (or a config entry's name): removes the file of that server's tokens. */
export async function logout(cli: CliArguments, output: Output): Promise<number> {
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
  const file = tokenFile(url);
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
  let entries: StoredAuth[] = [];
  try {
    const parsed = JSON.parse(text) as { entries?: Record<string, StoredAuth> };
    entries = Object.values(parsed.entries ?? {});
  } catch {
    // Unreadable, and conduit-mcp's own: it goes all the same, and the message says so.
  }
  await rm(file, { force: true });
  const removed = entries.map(describeEntry);
  if (cli.json) {
    output.out(JSON.stringify({ server, file, removed }, null, 2));
  } else if (removed.length === 0) {
    output.out(`conduit-mcp: removed ${file} (it held no readable entries) for ${server}`);
  } else {
    output.out(
      [`conduit-mcp: logged out of ${server}; removed from ${file}:`, ...removed.map((line) => `  ${line}`)]
        .map((line) => output.policy.line(line))
        .join('\n'),
    );
  }
  return EXIT.ok;
}
