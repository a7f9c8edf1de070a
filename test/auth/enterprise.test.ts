// Enterprise-managed authorization (SEP-990) through the whole stack: a Client with
// `grant: 'enterprise'` exchanges the user's ID token at an identity provider's token endpoint
// (RFC 8693, a small node:http server here that records what it is sent) for an ID-JAG, and
// trades that at the MCP server's loopback authorization server (RFC 7523).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { AuthError, Client, ClientPool, type OAuthOptions, parseConfig, Secret } from '../../src/index.js';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { closeLater } from '../helpers/auth-setup.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
const basic = (header: string | undefined) =>
  Buffer.from(String(header).replace(/^Basic /, ''), 'base64')
    .toString()
    .split(':')
    .map(decodeURIComponent);

interface IdpRequest {
  readonly path: string;
  readonly form: URLSearchParams;
  readonly authorization: string | undefined;
}

/** The identity provider: discovery, and a token endpoint that exchanges `idToken` for `idJag` (or refuses). */
async function startIdp(
  idToken: string,
  idJag: string,
  refuse?: { error: string; error_description: string },
) {
  const requests: IdpRequest[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    const path = new URL(request.url ?? '/', issuer).pathname;
    requests.push({ path, form, authorization: request.headers.authorization });
    response.setHeader('content-type', 'application/json');
    if (path === '/.well-known/openid-configuration') {
      response.end(
        JSON.stringify({ issuer, token_endpoint: `${issuer}/oauth2/token`, jwks_uri: `${issuer}/jwks` }),
      );
    } else if (path === '/oauth2/token' && !refuse && form.get('subject_token') === idToken) {
      response.end(
        JSON.stringify({
          access_token: idJag,
          issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
          token_type: 'N_A',
          expires_in: 300,
        }),
      );
    } else {
      response.statusCode = 400;
      response.end(
        JSON.stringify(refuse ?? { error: 'invalid_grant', error_description: 'unknown subject token' }),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeLater(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { issuer, requests };
}

async function scene(refuse?: { error: string; error_description: string }) {
  const idToken = `eyJ.id-${randomBytes(12).toString('base64url')}.sig`;
  const idJag = `eyJ.jag-${randomBytes(12).toString('base64url')}.sig`;
  const idp = await startIdp(idToken, idJag, refuse);
  const auth = await startAuthServer({
    registration: false,
    assertions: [idJag],
    clients: [{ id: 'mcp-app', method: 'client_secret_basic', secret: 'mcp-secret' }],
  });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v2');
  return { idToken, idJag, idp, auth, mcp };
}

function enterpriseClient(url: string, auth: OAuthOptions) {
  const client = new Client({
    name: 'enterprise',
    transport: { type: 'http', url, auth: { allowPrivateNetwork: true, ...auth } },
    reconnect: { maxReconnects: 0 },
  });
  closeLater(() => client.close());
  return client;
}

test('enterprise: the ID token is exchanged at the IdP for an ID-JAG for this server, which the authorization server trades for a token', async () => {
  const { idToken, idJag, idp, auth, mcp } = await scene();
  let asked = 0;
  const client = enterpriseClient(mcp.server.url, {
    grant: 'enterprise',
    idToken: async () => {
      asked++;
      return idToken;
    },
    idpTokenEndpoint: `${idp.issuer}/oauth2/token`,
    idpClientId: 'idp-app',
    idpClientSecret: new Secret('idp-secret'),
    clientId: 'mcp-app',
    clientSecret: new Secret('mcp-secret'),
  });
  await client.connect();
  assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'xaa' } })), 'xaa');
  assert.equal(asked, 1);
  assert.deepEqual(
    idp.requests.map((r) => r.path),
    ['/oauth2/token'],
  );
  const exchange = idp.requests[0]!;
  assert.deepEqual(Object.fromEntries(exchange.form), {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: idToken,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience: auth.issuer,
    resource: mcp.server.url,
  });
  assert.deepEqual(basic(exchange.authorization), ['idp-app', 'idp-secret']);
  const [grant, ...more] = auth.tokenRequests();
  assert.equal(more.length, 0);
  assert.equal(grant!.form.get('grant_type'), JWT_BEARER);
  assert.equal(grant!.form.get('assertion'), idJag);
  assert.equal(grant!.form.get('resource'), mcp.server.url);
  assert.deepEqual(basic(grant!.authorization), ['mcp-app', 'mcp-secret']);
});

test('enterprise with only the IdP issuer and a public IdP client: its token endpoint discovered, client_id in the form', async () => {
  const { idToken, idp, mcp } = await scene();
  const client = enterpriseClient(mcp.server.url, {
    grant: 'enterprise',
    idToken: new Secret(idToken),
    idpIssuer: idp.issuer,
    idpClientId: 'idp-public-app',
    clientId: 'mcp-app',
    clientSecret: 'mcp-secret',
  });
  await client.connect();
  assert.deepEqual(
    idp.requests.map((r) => r.path),
    ['/.well-known/openid-configuration', '/oauth2/token'],
  );
  assert.equal(idp.requests[1]!.form.get('client_id'), 'idp-public-app');
  assert.equal(idp.requests[1]!.authorization, undefined);
});

test('an exchange the IdP refuses: an AuthError naming the IdP step and its error, no ID token in it, nothing sent to the authorization server', async () => {
  const { idToken, idp, auth, mcp } = await scene({
    error: 'invalid_grant',
    error_description: 'the ID token has expired',
  });
  const client = enterpriseClient(mcp.server.url, {
    grant: 'enterprise',
    idToken: () => idToken,
    idpTokenEndpoint: `${idp.issuer}/oauth2/token`,
    idpClientId: 'idp-app',
    clientId: 'mcp-app',
    clientSecret: 'mcp-secret',
  });
  const error = await client.connect().then(
    () => assert.fail('connected'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AuthError, String(error));
  assert.equal(error.error, 'invalid_grant');
  assert.match(
    error.message,
    new RegExp(
      `the token exchange at the identity provider ${idp.issuer}/oauth2/token \\(the user's ID token for an ID-JAG for ${auth.issuer}\\): the identity provider answered invalid_grant \\(the ID token has expired\\)`,
    ),
  );
  assert.ok(!error.message.includes(idToken));
  assert.equal(auth.tokenRequests().length, 0, 'no jwt-bearer request without an ID-JAG');
});

test('a config file gives the enterprise grant and DPoP: the ID token read from its file when the grant runs, secrets as Secrets', async () => {
  const { idToken, idJag, idp, auth, mcp } = await scene();
  const directory = temporaryDirectory();
  writeFileSync(path.join(directory, 'id.token'), `${idToken}\n`);
  const file = path.join(directory, 'mcp.json');
  const oauth = {
    grant: 'enterprise',
    idTokenFile: 'id.token',
    idpTokenEndpoint: `${idp.issuer}/oauth2/token`,
    idpClientId: 'idp-app',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own interpolation
    idpClientSecret: '${env:IDP_SECRET}',
    clientId: 'mcp-app',
    clientSecret: 'mcp-secret',
    allowPrivateNetwork: true,
    dpop: false,
  };
  writeFileSync(file, JSON.stringify({ mcpServers: { corp: { type: 'http', url: mcp.server.url, oauth } } }));
  const resolved = parseConfig(
    JSON.stringify({ mcpServers: { corp: { url: mcp.server.url, oauth } } }),
    file,
    {
      env: { IDP_SECRET: 'idp-secret' },
    },
  ).servers[0]!.resolved as unknown as { auth: Record<string, unknown> };
  assert.ok(resolved.auth.idpClientSecret instanceof Secret && resolved.auth.clientSecret instanceof Secret);
  assert.equal(resolved.auth.dpop, false);
  process.env.IDP_SECRET = 'idp-secret';
  const pool = await ClientPool.fromConfigFile(file, { manifest: false });
  closeLater(() => pool.close());
  await pool.connect();
  assert.equal(
    textOf(await pool.callTool({ name: 'corp__echo', arguments: { text: 'from config' } })),
    'from config',
  );
  const exchange = idp.requests.find((request) => request.path === '/oauth2/token')!;
  assert.equal(exchange.form.get('subject_token'), idToken, 'the ID token read from its file, trimmed');
  assert.deepEqual(basic(exchange.authorization), ['idp-app', 'idp-secret']);
  assert.equal(auth.tokenRequests()[0]!.form.get('assertion'), idJag);
  delete process.env.IDP_SECRET;
  const problem = (changed: Record<string, unknown>) =>
    parseConfig(
      JSON.stringify({ mcpServers: { corp: { url: mcp.server.url, oauth: { ...oauth, ...changed } } } }),
      file,
      { env: { IDP_SECRET: 'x' } },
    ).servers[0]!.error?.message;
  assert.match(String(problem({ dpop: 'yes' })), /oauth\.dpop: must be true or false, got "yes"/);
  assert.match(
    String(problem({ idToken: 'x' })),
    /oauth\.idTokenFile: gives the ID token, and so does idToken; keep one of the two/,
  );
});
