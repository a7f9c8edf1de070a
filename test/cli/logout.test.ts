// Issue 18, the command line's token store: one owner-only file per HTTP server under the user's
// config directory (written by the library's FileTokenStore), and `conduit-mcp logout`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { clientKey, tokensKey } from '../../src/auth/token-store.js';
import { configDirectory, serverKey, tokenFile, tokenStoreFor } from '../../src/cli/token-files.js';
import type { StoredAuth } from '../../src/index.js';
import { browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, refreshRefused } from '../helpers/auth-oidc.js';
import { buildOnce, run } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';

buildOnce();

const ACCESS = 'at-5f4e3d2c1b-secret';
const REFRESH = 'rt-9a8b7c6d5e-secret';
const CLIENT_SECRET = 'cs-1234abcd-secret';

describe('where the CLI keeps tokens', () => {
  test('XDG_CONFIG_HOME (absolute only), else ~/.config; %APPDATA% on Windows', () => {
    assert.equal(configDirectory({ XDG_CONFIG_HOME: '/x/cfg' }, 'linux', '/home/u'), '/x/cfg/conduit-mcp');
    assert.equal(
      configDirectory({ XDG_CONFIG_HOME: 'rel' }, 'linux', '/home/u'),
      '/home/u/.config/conduit-mcp',
    );
    assert.equal(configDirectory({}, 'darwin', '/Users/u'), '/Users/u/.config/conduit-mcp');
    assert.equal(
      configDirectory({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u'),
      'C:\\Users\\u\\AppData\\Roaming\\conduit-mcp',
    );
    assert.equal(configDirectory({}, 'win32', 'C:\\Users\\u'), 'C:\\Users\\u\\AppData\\Roaming\\conduit-mcp');
  });

  test('one file per endpoint: the query does not matter, the path and port do', () => {
    const directory = '/cfg';
    const file = tokenFile('https://mcp.example.com/mcp?session=1', directory);
    assert.equal(path.dirname(file), '/cfg/tokens');
    assert.match(path.basename(file), /^mcp\.example\.com_443-mcp-[0-9a-f]{12}\.json$/);
    assert.equal(file, tokenFile('https://mcp.example.com/mcp#x', directory));
    assert.notEqual(file, tokenFile('https://mcp.example.com/other', directory));
    assert.notEqual(file, tokenFile('https://mcp.example.com:8443/mcp', directory));
    assert.notEqual(file, tokenFile('http://mcp.example.com/mcp', directory));
    assert.equal(serverKey('https://h.example/a/b?c=d'), 'https://h.example/a/b');
  });
});

/** Tokens and a registration for `url`, as the library's OAuth flow stores them. */
async function seed(url: string, directory: string): Promise<string> {
  const store = tokenStoreFor(url, directory);
  const issuer = 'http://127.0.0.1:9/issuer';
  await store.set(tokensKey(issuer, serverKey(url)), {
    kind: 'tokens',
    issuer,
    accessToken: ACCESS,
    tokenType: 'Bearer',
    refreshToken: REFRESH,
    scope: 'mcp:read',
  });
  await store.set(clientKey(issuer), {
    kind: 'client',
    issuer,
    clientId: 'client-42',
    clientSecret: CLIENT_SECRET,
    tokenEndpointAuthMethod: 'client_secret_post',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  return store.path;
}

describe('conduit-mcp logout', () => {
  test('removes that server’s file, says what it held (never a token), and leaves other servers alone', async () => {
    const home = temporaryDirectory();
    const directory = path.join(home, 'conduit-mcp');
    const env = { ...process.env, XDG_CONFIG_HOME: home };
    const url = 'https://mcp.example.com/mcp';
    const other = 'https://other.example.com/mcp';
    const file = await seed(url, directory);
    const otherFile = await seed(other, directory);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);

    const out = await run(['logout', `${url}?ignored=1`], { env });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(
      out.stdout,
      `conduit-mcp: logged out of ${url}; removed from ${file}:\n` +
        '  the tokens from http://127.0.0.1:9/issuer (with a refresh token), scope mcp:read\n' +
        '  the client registration with http://127.0.0.1:9/issuer (client id client-42)\n' +
        'conduit-mcp: not revoked: the refresh token and the access token (GET http://127.0.0.1:9/.well-known/oauth-authorization-server/issuer failed: bad port)\n',
    );
    for (const secret of [ACCESS, REFRESH, CLIENT_SECRET])
      assert.ok(!`${out.stdout}${out.stderr}`.includes(secret));
    assert.equal(existsSync(file), false);
    assert.equal(existsSync(otherFile), true);

    const again = await run(['logout', url], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      again.stdout,
      `conduit-mcp: nothing to remove: no tokens are stored for ${url} (${file} does not exist)\n`,
    );
    const json = await run(['logout', '--json', other], { env });
    assert.equal(json.code, 0, json.stderr);
    const unreachable =
      'GET http://127.0.0.1:9/.well-known/oauth-authorization-server/issuer failed: bad port';
    assert.deepEqual(JSON.parse(json.stdout), {
      server: other,
      file: otherFile,
      issuer: 'http://127.0.0.1:9/issuer',
      revoked: [],
      notRevoked: [
        { token: 'refresh_token', reason: unreachable },
        { token: 'access_token', reason: unreachable },
      ],
      removed: [
        'the tokens from http://127.0.0.1:9/issuer (with a refresh token), scope mcp:read',
        'the client registration with http://127.0.0.1:9/issuer (client id client-42)',
      ],
    });
  });

  test('by a config entry’s name; a stdio entry or a missing argument is a usage error', async () => {
    const home = temporaryDirectory();
    const env = { ...process.env, XDG_CONFIG_HOME: home };
    const url = 'http://127.0.0.1:7/mcp';
    const file = await seed(url, path.join(home, 'conduit-mcp'));
    const config = path.join(temporaryDirectory(), 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { remote: { type: 'http', url }, local: { command: process.execPath, args: ['x.js'] } },
      }),
    );
    const named = await run(['logout', 'remote', '--config', config], { env });
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /^conduit-mcp: logged out of http:\/\/127\.0\.0\.1:7\/mcp; removed from /);
    assert.equal(existsSync(file), false);
    const flagged = await run(['logout', '--config', config, '--server', 'remote'], { env });
    assert.match(flagged.stdout, /nothing to remove/);
    const stdio = await run(['logout', 'local', '--config', config], { env });
    assert.equal(stdio.code, 2);
    assert.match(
      stdio.stderr,
      /local in \S+mcp\.json is a stdio server: conduit-mcp keeps OAuth tokens only for HTTP servers/,
    );
    const bare = await run(['logout'], { env });
    assert.equal(bare.code, 2);
    assert.match(
      bare.stderr,
      /logout takes the server's URL \(conduit-mcp logout https:\/\/host\/mcp\), or its name with --config <file>/,
    );
    const name = await run(['logout', 'remote'], { env });
    assert.equal(name.code, 2);
    assert.match(name.stderr, /logout takes the server's URL/);
  });

  test('a file that is not a token file is still removed, and says so', async () => {
    const home = temporaryDirectory();
    const url = 'https://broken.example.com/mcp';
    const file = await seed(url, path.join(home, 'conduit-mcp'));
    writeFileSync(file, 'not json');
    const out = await run(['logout', url], { env: { ...process.env, XDG_CONFIG_HOME: home } });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, `conduit-mcp: removed ${file} (it held no readable entries) for ${url}\n`);
    assert.equal(existsSync(file), false);
  });
});

describe('conduit-mcp logout against oidc-provider', () => {
  test('revokes the tokens at the revocation endpoint (RFC 7009), says which were revoked, then removes the file', async () => {
    const { as, mcp } = await oidcScene();
    const home = temporaryDirectory();
    const store = tokenStoreFor(mcp.url, path.join(home, 'conduit-mcp'));
    const client = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
    await client.connect();
    await client.close();
    const entries = Object.values(
      (JSON.parse(readFileSync(store.path, 'utf8')) as { entries: Record<string, StoredAuth> }).entries,
    );
    const stored = entries.find((entry) => entry.kind === 'tokens');
    const registration = entries.find((entry) => entry.kind === 'client');
    assert.ok(stored?.kind === 'tokens' && stored.refreshToken && registration?.kind === 'client');
    const out = await run(['logout', mcp.url], { env: { ...process.env, XDG_CONFIG_HOME: home } });
    assert.equal(out.code, 0, out.stderr);
    assert.ok(
      out.stdout.endsWith(
        `\nconduit-mcp: revoked at ${as.issuer}: the refresh token\n` +
          'conduit-mcp: not revoked: the access token (revoking the access token: the authorization server answered unsupported_token_type (Structured JWT Tokens cannot be revoked via the revocation_endpoint))\n',
      ),
      out.stdout,
    );
    assert.ok(!out.stdout.includes(stored.refreshToken) && !out.stdout.includes(stored.accessToken));
    assert.equal(existsSync(store.path), false);
    const revocations = as.requests.filter((r) => r.path === '/token/revocation');
    assert.deepEqual(
      revocations.map((r) => [r.tokenTypeHint, r.status]),
      [
        ['refresh_token', 200],
        ['access_token', 400], // unsupported_token_type: its JWTs expire on their own
      ],
    );
    assert.equal(
      await refreshRefused(as.issuer, registration.clientId, stored.refreshToken, mcp.url),
      'invalid_grant',
    );
  });
});
