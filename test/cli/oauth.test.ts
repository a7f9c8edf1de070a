// Issue 18, the command line end to end: the built command against the official SDK's MCP server
// behind the loopback authorization server. A user's consent: the command prints the URL, the
// test opens it as a browser would (the redirect reaches the command's loopback listener), the
// tokens land in the server's own file under XDG_CONFIG_HOME, the next run needs no consent, and
// `logout` removes them. Machine to machine: --grant client_credentials with flags.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { tokenFile } from '../../src/cli/token-files.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { browserConsent } from '../helpers/auth.js';
import { closeLater } from '../helpers/auth-setup.js';
import { buildOnce, run, start } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';

buildOnce();

const URL_LINE =
  /needs your authorization: open this URL in a browser \(conduit-mcp waits for the redirect\):\n {2}(\S+)/;

async function protectedServer(sdk: 'v1' | 'v2', options: Parameters<typeof startAuthServer>[0] = {}) {
  const auth = await startAuthServer(options);
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, sdk);
  return { auth, mcp };
}

/** Runs the command until it prints the authorization URL, consents as a browser, and waits for the end. */
async function withConsent(args: string[], env: NodeJS.ProcessEnv) {
  const running = start(args, { env });
  const [, shown] = await running.waitFor(URL_LINE);
  const url = new URL(shown!);
  await browserConsent(url);
  return { url, finished: await running.finished };
}

describe('conduit-mcp and OAuth', () => {
  for (const sdk of ['v1', 'v2'] as const) {
    test(`SDK ${sdk}: consent once through the printed URL, tokens kept per server, reused, then logout`, async () => {
      const { auth, mcp } = await protectedServer(sdk);
      const home = temporaryDirectory();
      const env = { ...process.env, XDG_CONFIG_HOME: home };
      const file = tokenFile(mcp.server.url, path.join(home, 'conduit-mcp'));

      const first = await withConsent(['call', 'echo', '--arg', 'text=hi', '--verbose', mcp.server.url], env);
      assert.equal(first.finished.code, 0, first.finished.stderr);
      assert.equal(first.finished.stdout, 'hi\n');
      assert.equal(first.url.origin, auth.origin);
      assert.equal(first.url.searchParams.get('resource'), mcp.server.url);
      assert.match(first.finished.stderr, /auth: \S+ is protected by http:\/\/127\.0\.0\.1:\d+/);
      assert.match(first.finished.stderr, /auth: authorized by http:\/\/127\.0\.0\.1:\d+\n/);
      // The file is the server's own, owner-only, and holds the tokens and the registration.
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, { kind: string }> };
      assert.deepEqual(
        Object.values(stored.entries)
          .map((entry) => entry.kind)
          .sort(),
        ['client', 'resource', 'tokens'],
      );
      // No credential the authorization server handed out shows in anything the command wrote.
      for (const credential of auth.issued) {
        assert.ok(!`${first.finished.stdout}${first.finished.stderr}`.includes(credential), credential);
      }

      const seenBefore = mcp.server.requests.length;
      const second = await run(['call', 'echo', '--arg', 'text=again', mcp.server.url], { env });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, 'again\n');
      const secondRun = mcp.server.requests.slice(seenBefore);
      assert.ok(
        secondRun.length > 0 &&
          secondRun.every((r) => r.path === '/mcp' && String(r.headers.authorization).startsWith('Bearer ')),
        'the stored token goes out on the command\u2019s very first request: no 401, no metadata fetched',
      );
      assert.doesNotMatch(second.stderr, /needs your authorization/);
      assert.equal(auth.tokenRequests('authorization_code').length, 1, 'no second consent');

      const logout = await run(['logout', mcp.server.url], { env });
      assert.equal(logout.code, 0, logout.stderr);
      assert.match(logout.stdout, new RegExp(`^conduit-mcp: logged out of ${mcp.server.url}; removed from `));
      assert.match(logout.stdout, /the tokens from http:\/\/127\.0\.0\.1:\d+ \(with a refresh token\)\n/);
      assert.match(logout.stdout, /the client registration with http:\/\/127\.0\.0\.1:\d+ \(client id \S+\)/);
      assert.equal(existsSync(file), false);

      const third = await withConsent(['tools', mcp.server.url], env);
      assert.equal(third.finished.code, 0, third.finished.stderr);
      assert.equal(
        auth.tokenRequests('authorization_code').length,
        2,
        'after logout, consent is asked again',
      );
    });
  }

  test('servers/tools --config: a server waiting for consent says how to log in; after --server logs in, it is ready from the same token file', async () => {
    const { auth, mcp } = await protectedServer('v1');
    const home = temporaryDirectory();
    const env = { ...process.env, XDG_CONFIG_HOME: home };
    const config = path.join(temporaryDirectory(), 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { remote: { type: 'http', url: mcp.server.url, oauth: {} } } }),
    );
    const hint = `conduit-mcp: remote needs your authorization: run conduit-mcp tools --config ${config} --server remote to log in`;

    const before = await run(['servers', '--config', config], { env });
    assert.notEqual(before.code, 0, 'a server not ready fails the listing');
    assert.match(before.stdout, /^\s*remote\s+needs_auth\s+-\s+-\s+waits for your consent \(see below\)$/m);
    assert.ok(before.stderr.includes(hint), before.stderr);
    const toolsBefore = await run(['tools', '--config', config], { env });
    assert.ok(toolsBefore.stderr.includes(hint), toolsBefore.stderr);
    assert.doesNotMatch(toolsBefore.stderr, /remote is needs_auth/);
    assert.equal(auth.tokenRequests().length, 0, 'a listing never asks for consent');

    const login = await withConsent(['tools', '--config', config, '--server', 'remote'], env);
    assert.equal(login.finished.code, 0, login.finished.stderr);

    const after = await run(['servers', '--config', config], { env });
    assert.equal(after.code, 0, after.stderr);
    assert.match(after.stdout, /^\s*remote\s+ready\s/m);
    assert.doesNotMatch(after.stderr, /needs your authorization/);
    const tools = await run(['tools', '--config', config], { env });
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /remote__echo/);
    assert.equal(auth.tokenRequests('authorization_code').length, 1, 'one consent for all three runs');
  });

  test('--no-login fails at once where consent is needed, asking nothing; with tokens kept it runs', async () => {
    const { auth, mcp } = await protectedServer('v1');
    const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
    const started = Date.now();
    const refused = await run(['call', 'echo', '--arg', 'text=hi', '--no-login', mcp.server.url], { env });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /--no-login: \S+ needs your authorization; run the command once without --no-login to log in/,
    );
    assert.doesNotMatch(refused.stderr, URL_LINE);
    assert.ok(Date.now() - started < 30_000, 'not the 5-minute authorizationTimeout');
    assert.equal(auth.requests.filter((r) => r.path === '/authorize').length, 0);

    const login = await withConsent(['call', 'echo', '--arg', 'text=hi', mcp.server.url], env);
    assert.equal(login.finished.code, 0, login.finished.stderr);
    const later = await run(['call', 'echo', '--arg', 'text=later', '--no-login', mcp.server.url], { env });
    assert.equal(later.code, 0, later.stderr);
    assert.equal(later.stdout, 'later\n');
  });

  test('--open hands the URL to the system opener (direct spawn, the URL one argument); a missing opener is a note', async () => {
    const { mcp } = await protectedServer('v2');
    const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
    // A stand-in for xdg-open: records its arguments and, as a browser, follows the URL.
    const bin = temporaryDirectory();
    const record = path.join(bin, 'argv.json');
    const opener = path.join(bin, 'xdg-open');
    writeFileSync(
      opener,
      `#!${process.execPath}\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)));\n` +
        'fetch(process.argv[2], { redirect: "follow" }).then((r) => r.text());\n',
    );
    chmodSync(opener, 0o755);
    const opened = await run(['call', 'echo', '--arg', 'text=opened', '--open', mcp.server.url], {
      env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    });
    assert.equal(opened.code, 0, opened.stderr);
    assert.equal(opened.stdout, 'opened\n');
    const [shown] = URL_LINE.exec(opened.stderr)!.slice(1);
    const argv = JSON.parse(readFileSync(record, 'utf8')) as string[];
    assert.deepEqual(argv, [shown], 'one argument: the URL printed, query and all');
    assert.match(argv[0]!, /[?&]state=/);

    const noOpener = start(['tools', '--open', mcp.server.url], {
      env: { ...process.env, XDG_CONFIG_HOME: temporaryDirectory(), PATH: temporaryDirectory() },
    });
    const [, url] = await noOpener.waitFor(URL_LINE);
    await noOpener.waitFor(/could not open a browser \(xdg-open: ENOENT\); open the URL above yourself/);
    await browserConsent(new URL(url!));
    const done = await noOpener.finished;
    assert.equal(done.code, 0, done.stderr);
  });

  test('--connect-timeout stands still while the user is in the browser; a refused consent is an AuthError, exit 1', async () => {
    const { mcp } = await protectedServer('v2');
    const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
    // Discovery and registration before the URL is shown must fit in the timeout on a loaded
    // machine; the wait after it is longer than the whole timeout.
    const slow = start(['tools', '--connect-timeout', '4000', mcp.server.url], { env });
    const [, shown] = await slow.waitFor(URL_LINE);
    await sleep(4500);
    await browserConsent(new URL(shown!)).catch((error: Error) => {
      throw new Error(`the consent failed (${error.message}); the command wrote: ${slow.stderr()}`, {
        cause: error,
      });
    });
    const done = await slow.finished;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /echo/);

    const refusing = await protectedServer('v2', { authorizeError: 'access_denied' });
    const denied = start(['tools', refusing.mcp.server.url], { env });
    const [, deniedUrl] = await denied.waitFor(URL_LINE);
    await browserConsent(new URL(deniedUrl!));
    const failed = await denied.finished;
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /access_denied/);
  });

  test('--grant client_credentials with --client-id and --client-secret-env: no browser, the secret never shown', async () => {
    const secret = 'cc-secret-7e6d5c4b3a';
    const { auth, mcp } = await protectedServer('v2', {
      registration: false,
      authMethods: ['client_secret_basic'],
      clients: [{ id: 'robot', secret, method: 'client_secret_basic' }],
    });
    const home = temporaryDirectory();
    const env = { ...process.env, XDG_CONFIG_HOME: home, ROBOT_SECRET: secret };
    const call = await run(
      [
        'call',
        'echo',
        '--arg',
        'text=m2m',
        '--verbose',
        '--trace',
        '-',
        '--grant',
        'client_credentials',
        '--client-id',
        'robot',
        '--client-secret-env',
        'ROBOT_SECRET',
        mcp.server.url,
      ],
      { env },
    );
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, 'm2m\n');
    assert.doesNotMatch(call.stderr, /needs your authorization/);
    assert.equal(auth.tokenRequests('client_credentials').length, 1);
    for (const credential of [secret, ...auth.issued]) {
      assert.ok(!`${call.stdout}${call.stderr}`.includes(credential), credential);
    }
    assert.ok(existsSync(tokenFile(mcp.server.url, path.join(home, 'conduit-mcp'))));
  });

  test('--grant jwt_bearer --assertion-file: the workload JWT is read from the file, no browser, never shown', async () => {
    const jwt = `eyJ.${'w'.repeat(24)}.sig`;
    const { auth, mcp } = await protectedServer('v2', { registration: false, assertions: [jwt] });
    const file = path.join(temporaryDirectory(), 'token');
    writeFileSync(file, `${jwt}\n`);
    const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
    const call = await run(
      [
        'call',
        'echo',
        '--arg',
        'text=wif',
        '--verbose',
        '--grant',
        'jwt_bearer',
        '--assertion-file',
        file,
        mcp.server.url,
      ],
      { env },
    );
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, 'wif\n');
    const [request, ...more] = auth.tokenRequests();
    assert.equal(more.length, 0);
    assert.equal(request!.form.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.equal(request!.form.get('assertion'), jwt, 'the file trimmed');
    assert.equal(auth.requests.filter((r) => r.path === '/authorize').length, 0);
    for (const credential of [jwt, ...auth.issued]) {
      assert.ok(!`${call.stdout}${call.stderr}`.includes(credential), credential);
    }
  });

  test('flag mistakes: client_credentials without a client, a secret env that is unset, OAuth flags beside a static token', async () => {
    const url = 'http://127.0.0.1:1/mcp';
    const env = { ...process.env, XDG_CONFIG_HOME: temporaryDirectory() };
    const noClient = await run(['tools', '--grant', 'client_credentials', url], { env });
    assert.equal(noClient.code, 2);
    assert.match(
      noClient.stderr,
      /--grant client_credentials needs the client registered for it: --client-id <id> --client-secret-env <NAME>/,
    );
    const unset = await run(['tools', '--client-id', 'a', '--client-secret-env', 'NO_SUCH_VAR_4711', url], {
      env,
    });
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /--client-secret-env NO_SUCH_VAR_4711: NO_SUCH_VAR_4711 is not set/);
    const literal = await run(['tools', '--client-secret-env', 's3cr3t-value!', url], { env });
    assert.equal(literal.code, 2);
    assert.match(literal.stderr, /takes the name of a variable that holds the secret/);
    assert.ok(!literal.stderr.includes('s3cr3t-value!'));
    const both = await run(['tools', '--header', 'Authorization: Bearer x', '--scope', 'mcp', url], { env });
    assert.equal(both.code, 2);
    assert.match(
      both.stderr,
      /--scope is for OAuth, and the server's headers already carry an Authorization/,
    );
    const contradiction = await run(['tools', '--open', '--no-login', url], { env });
    assert.equal(contradiction.code, 2);
    assert.match(contradiction.stderr, /--open and --no-login contradict each other: keep one of the two/);
    const badGrant = await run(['tools', '--grant', 'password', url], { env });
    assert.equal(badGrant.code, 2);
    assert.match(
      badGrant.stderr,
      /--grant takes authorization_code, client_credentials or jwt_bearer, got "password"/,
    );
    const noFile = await run(['tools', '--grant', 'jwt_bearer', url], { env });
    assert.equal(noFile.code, 2);
    assert.match(noFile.stderr, /--grant jwt_bearer needs the workload token: --assertion-file <path>/);
    const fileWithoutGrant = await run(['tools', '--assertion-file', '/nonexistent', url], { env });
    assert.equal(fileWithoutGrant.code, 2);
    assert.match(fileWithoutGrant.stderr, /--assertion-file is for --grant jwt_bearer/);
    const missing = path.join(temporaryDirectory(), 'no-token');
    const absent = await run(['tools', '--grant', 'jwt_bearer', '--assertion-file', missing, url], { env });
    assert.equal(absent.code, 2);
    assert.match(absent.stderr, new RegExp(`--assertion-file ${missing}: cannot read it \\(ENOENT\\)`));
    const empty = path.join(temporaryDirectory(), 'token');
    writeFileSync(empty, '\n');
    const blank = await run(['tools', '--grant', 'jwt_bearer', '--assertion-file', empty, url], { env });
    assert.equal(blank.code, 2);
    assert.match(blank.stderr, /is empty; it should hold the workload's JWT/);
    const stdio = await run(['tools', '--scope', 'mcp', '--', process.execPath, 'server.js'], { env });
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /--scope is for HTTP servers/);
  });

  test('a static Authorization header turns OAuth off: a 401 is the server refusing it, exit 1, the token unseen', async () => {
    const { mcp } = await protectedServer('v1');
    const token = 'static-token-0f1e2d3c';
    const home = temporaryDirectory();
    const refused = await run(['tools', '--header', `Authorization: Bearer ${token}`, mcp.server.url], {
      env: { ...process.env, XDG_CONFIG_HOME: home },
    });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /HTTP 401/);
    assert.doesNotMatch(refused.stderr, /needs your authorization/);
    assert.ok(!refused.stderr.includes(token));
    assert.equal(existsSync(path.join(home, 'conduit-mcp')), false, 'nothing stored');
  });
});
