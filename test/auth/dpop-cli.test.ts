// `conduit-mcp --dpop` against oidc-provider with DPoP: the built command gets a DPoP-bound
// token, keeps its key with the tokens in the server's owner-only file, and prints neither.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tokenFile } from '../../src/cli/token-files.js';
import type { StoredTokens } from '../../src/index.js';
import { consent } from '../helpers/auth-browser.js';
import { oidcScene } from '../helpers/auth-oidc.js';
import { buildOnce, start } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';

buildOnce();

const URL_LINE =
  /needs your authorization: open this URL in a browser \(conduit-mcp waits for the redirect\):\n {2}(\S+)/;

test('conduit-mcp --dpop: a DPoP-bound token, the key in the owner-only token file, never printed', async () => {
  const { as, mcp, authorizations } = await oidcScene({ dpop: 'on' });
  const home = temporaryDirectory();
  const running = start(['call', 'echo', '--arg', 'text=bound', '--dpop', '--verbose', mcp.url], {
    env: { ...process.env, XDG_CONFIG_HOME: home },
  });
  const [, shown] = await running.waitFor(URL_LINE);
  await consent(new URL(shown!), { deliver: true });
  const finished = await running.finished;
  assert.equal(finished.code, 0, finished.stderr);
  assert.equal(finished.stdout, 'bound\n');
  const file = tokenFile(mcp.url, path.join(home, 'conduit-mcp'));
  if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
  const entries = JSON.parse(readFileSync(file, 'utf8')).entries as Record<string, StoredTokens>;
  const tokens = entries[`tokens ${as.issuer} ${mcp.url}`]!;
  assert.equal(tokens.tokenType, 'DPoP');
  const d = tokens.dpopKey!.privateJwk.d!;
  assert.ok(!`${finished.stdout}${finished.stderr}`.includes(d), 'the private key is never printed');
  assert.ok(!`${finished.stdout}${finished.stderr}`.includes(tokens.accessToken));
  assert.ok(
    authorizations()
      .filter(Boolean)
      .every((value) => value.startsWith('DPoP ')),
  );
});
