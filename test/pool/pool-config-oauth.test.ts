// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${VAR} literally
// OAuth from config files: an HTTP entry's `oauth` object, against the official SDK's MCP server
// behind the loopback authorization server.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { ClientPool, ConfigError, MemoryTokenStore, parseConfig, Secret } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { headlessConsent } from '../helpers/auth.js';
import { closeLater } from '../helpers/auth-setup.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';
import { textOf, waitFor } from '../helpers/wait.js';

guardProcesses();

const stateOf = (pool: ClientPool, name: string) => pool.status().find((s) => s.name === name)!;

function writeConfig(config: unknown): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('client_credentials from a config file: the id from ${VAR}, the secret from ${input:id}, tokens in a 0600 file beside it', async () => {
  const auth = await startAuthServer({
    authMethods: ['client_secret_basic'],
    clients: [{ id: 'machine', method: 'client_secret_basic', secret: 'machine-secret' }],
  });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2');
  const file = writeConfig({
    // VS Code's format: the secret is asked for with a password input.
    inputs: [{ id: 'secret', type: 'promptString', password: true, description: 'Client secret' }],
    servers: {
      remote: {
        type: 'http',
        url: mcp.server.url,
        oauth: {
          grant: 'client_credentials',
          clientId: '${CLIENT_ID}',
          clientSecret: '${input:secret}',
          allowPrivateNetwork: true,
          tokenStore: { file: 'state/tokens.json' },
        },
      },
    },
  });
  const asked: string[] = [];
  await using pool = ClientPool.fromConfigFile(file, {
    env: { CLIENT_ID: 'machine' },
    input: ({ id, password }) => {
      asked.push(`${id} ${password}`);
      return 'machine-secret';
    },
  });
  await pool.connect();
  assert.equal(stateOf(pool, 'remote').state, 'ready', String(stateOf(pool, 'remote').error));
  assert.equal(textOf(await pool.callTool({ name: 'remote__echo', arguments: { text: 'm2m' } })), 'm2m');
  assert.deepEqual(asked, ['secret true']);
  assert.equal(auth.tokenRequests('client_credentials').length, 1);
  const tokens = path.join(path.dirname(file), 'state/tokens.json');
  assert.equal(statSync(tokens).mode & 0o777, 0o600);
  assert.match(readFileSync(tokens, 'utf8'), /"accessToken"|"access_token"/);
});

test('oauth.store as a function gives each server its own store, told the name and URL; a tokenStore file still wins', async () => {
  const auth = await startAuthServer({
    authMethods: ['client_secret_basic'],
    clients: [{ id: 'machine', method: 'client_secret_basic', secret: 'machine-secret' }],
  });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1');
  const oauth = {
    grant: 'client_credentials',
    clientId: 'machine',
    clientSecret: 'machine-secret',
    allowPrivateNetwork: true,
  };
  const file = writeConfig({
    mcpServers: {
      first: { type: 'http', url: mcp.server.url, oauth },
      second: { type: 'http', url: `${mcp.server.url}?copy=2`, oauth },
      filed: { type: 'http', url: mcp.server.url, oauth: { ...oauth, tokenStore: { file: 'tokens.json' } } },
    },
  });
  class KindsWritten extends MemoryTokenStore {
    readonly kinds: string[] = [];
    override async set(...[key, value]: Parameters<MemoryTokenStore['set']>): Promise<void> {
      this.kinds.push(value.kind);
      await super.set(key, value);
    }
  }
  const stores = new Map<string, KindsWritten>();
  const asked: string[] = [];
  await using pool = ClientPool.fromConfigFile(file, {
    oauth: {
      store: (server, url) => {
        asked.push(`${server} ${url}`);
        const store = new KindsWritten();
        stores.set(server, store);
        return store;
      },
    },
  });
  await pool.connect();
  for (const name of ['first', 'second', 'filed']) {
    assert.equal(stateOf(pool, name).state, 'ready', String(stateOf(pool, name).error));
  }
  assert.deepEqual(asked.sort(), [`first ${mcp.server.url}`, `second ${mcp.server.url}?copy=2`]);
  for (const name of ['first', 'second']) {
    assert.deepEqual(
      stores.get(name)!.kinds,
      ['tokens', 'resource'],
      `${name}'s tokens are in its own store`,
    );
  }
  assert.match(readFileSync(path.join(path.dirname(file), 'tokens.json'), 'utf8'), /ccessToken|access_token/);
});

test('authorization_code from a config file: the host is asked with the server name; callbackPort sets the redirect URL', async () => {
  const auth = await startAuthServer({ scopesSupported: ['mcp', 'extra'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1');
  const port = await freePort();
  const file = writeConfig({
    mcpServers: {
      // Claude Code's keys: callbackPort and a space-separated scopes string.
      remote: {
        type: 'http',
        url: mcp.server.url,
        oauth: { callbackPort: port, scopes: 'mcp extra', allowPrivateNetwork: true },
      },
    },
  });
  const shown: Array<{ server: string; url: URL }> = [];
  await using pool = ClientPool.fromConfigFile(file, {
    oauth: {
      onAuthorizationUrl: async (url, server) => {
        shown.push({ server, url });
        return headlessConsent(url);
      },
    },
  });
  const needs: string[] = [];
  pool.on('serverNeedsAuth', (event) => needs.push(event.server));
  await pool.connect();
  await waitFor(() => stateOf(pool, 'remote').state === 'ready', 'remote ready after consent');
  assert.deepEqual(needs, ['remote']);
  assert.equal(shown.length, 1);
  assert.equal(shown[0]!.server, 'remote');
  assert.equal(shown[0]!.url.searchParams.get('redirect_uri'), `http://localhost:${port}/callback`);
  assert.equal(shown[0]!.url.searchParams.get('scope'), 'mcp extra');
  assert.equal(textOf(await pool.callTool({ name: 'remote__echo', arguments: { text: 'ok' } })), 'ok');
});

test('oauth settings are checked in the loader: each problem names the file, the server and the key', async () => {
  const file = '/srv/conf/mcp.json';
  const entry = (oauth: unknown, extra: Record<string, unknown> = { url: 'https://mcp.example.com/mcp' }) =>
    parseConfig(JSON.stringify({ mcpServers: { remote: { ...extra, oauth } } }), file, { env: {} })
      .servers[0]!;
  const problem = (oauth: unknown, extra?: Record<string, unknown>) => {
    const { error } = entry(oauth, extra);
    assert.ok(error instanceof ConfigError, `a ConfigError for ${JSON.stringify(oauth)}`);
    return error.message;
  };
  assert.match(
    problem({ client_secret: 'x' }),
    /^\/srv\/conf\/mcp\.json: mcpServers\.remote\.oauth\.client_secret: is not an OAuth setting; the settings are grant, clientId, clientSecret/,
  );
  assert.match(
    problem({ clientSecret: '${SECRET}' }),
    /mcpServers\.remote\.oauth\.clientSecret: the environment variable SECRET is not set/,
  );
  assert.match(
    problem({ grant: 'password' }),
    /oauth\.grant: must be "authorization_code", "client_credentials"/,
  );
  assert.match(
    problem({ scopes: 3 }),
    /oauth\.scopes: must be an array of scope names or one space-separated string/,
  );
  assert.match(problem({ callbackPort: 70000 }), /oauth\.callbackPort: must be a port number/);
  assert.match(
    problem({ callbackPort: 8080, redirectUrl: 'http://127.0.0.1:9/cb' }),
    /oauth\.callbackPort: sets the redirect URL, and so does redirectUrl/,
  );
  assert.match(
    problem({ tokenStore: 'disk' }),
    /oauth\.tokenStore: must be "memory" or \{ "file": "<path>" \}/,
  );
  assert.match(problem({ requestTimeout: -1 }), /oauth\.requestTimeout: must be a whole number of ms/);
  assert.match(problem({ allowPrivateNetwork: 'yes' }), /oauth\.allowPrivateNetwork: must be true or false/);
  assert.match(problem([]), /mcpServers\.remote\.oauth: must be an object of OAuth settings/);
  assert.match(
    problem({ assertion: 'jwt', assertionFile: 'token' }),
    /oauth\.assertionFile: gives the assertion, and so does assertion; keep one of the two/,
  );
  assert.match(
    problem({}, { command: 'node' }),
    /mcpServers\.remote\.oauth: is for HTTP entries \(with "url"\); a stdio server gets its credentials through "env"/,
  );

  const config = parseConfig(
    JSON.stringify({
      mcpServers: {
        remote: {
          url: 'https://mcp.example.com/mcp',
          oauth: {
            clientId: 'app',
            clientSecret: '${SECRET:-fallback}',
            privateKey: '${KEY}',
            scopes: ['read', 'write'],
            authServerMetadataUrl: 'https://auth.example.com/.well-known/openid-configuration',
          },
        },
      },
    }),
    file,
    { env: { KEY: 'pem' } },
  );
  const auth = (config.servers[0]!.resolved as { auth?: Record<string, unknown> }).auth!;
  assert.ok(
    auth.clientSecret instanceof Secret && auth.privateKey instanceof Secret,
    'secrets become Secrets',
  );
  assert.doesNotMatch(JSON.stringify(auth), /fallback|pem/, 'and never show');
  assert.equal(auth.clientId, 'app');
  assert.deepEqual(auth.scopes, ['read', 'write']);
  assert.equal(auth.store, undefined, 'in memory unless a file is named');
  const directory = temporaryDirectory();
  writeFileSync(path.join(directory, 'token.jwt'), ' first.jwt.token \n');
  const workload = parseConfig(
    JSON.stringify({
      mcpServers: {
        remote: {
          url: 'https://mcp.example.com/mcp',
          oauth: { grant: 'jwt_bearer', clientId: 'app', assertionFile: 'token.jwt' },
        },
      },
    }),
    path.join(directory, 'mcp.json'),
    { env: {} },
  );
  const assertion = (workload.servers[0]!.resolved as { auth?: { assertion?: unknown } }).auth!
    .assertion as () => Promise<string>;
  assert.equal(await assertion(), 'first.jwt.token', 'read when a token is due, trimmed');
  writeFileSync(path.join(directory, 'token.jwt'), 'rotated.jwt.token');
  assert.equal(await assertion(), 'rotated.jwt.token', 'a rotated token is picked up');
  writeFileSync(path.join(directory, 'token.jwt'), '\n');
  await assert.rejects(
    assertion(),
    /the assertion file .*token\.jwt is empty; it should hold the workload's JWT/,
  );
  assert.deepEqual(config.warnings, [
    `${file}: mcpServers.remote.oauth.authServerMetadataUrl is not used (ignored): conduit-mcp finds the authorization server from the resource metadata (RFC 9728, then RFC 8414)`,
  ]);
});
