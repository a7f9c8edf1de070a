// Every auth path, success and failure, for the secrets test: run in the test process (errors,
// diagnostics channels) and in a host process with NODE_DEBUG=conduit-mcp (the debug log):
// test/fixtures/hosts/auth-secret-paths.ts. Returns the labels of the paths taken and every
// credential that existed on them (tokens, codes, verifiers, client secrets, the private key,
// workload assertions).
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError, MemoryTokenStore, Secret } from '../../src/index.js';
import {
  type AuthServer,
  type AuthServerOptions,
  startAuthServer,
} from '../fixtures/auth/authorization-server.js';
import { type ResourceOptions, startProtectedResource } from '../fixtures/auth/protected-resource.js';
import { call, headlessConsent, provider } from './auth.js';
import type { Observe } from './secret-scenarios.js';

export async function provokeAuthPaths(
  observe: Observe,
): Promise<{ labels: string[]; credentials: string[] }> {
  const servers: AuthServer[] = [];
  const closers: Array<() => Promise<void>> = [];
  const credentials: string[] = [];
  const labels: string[] = [];
  const setup = async (as: AuthServerOptions = {}, resource: Partial<ResourceOptions> = {}) => {
    const auth = await startAuthServer(as);
    const rs = await startProtectedResource({
      prm: 'header',
      authorizationServers: () => [auth.issuer],
      validate: (token) => auth.accessTokens.get(token)?.scope,
      ...resource,
    });
    servers.push(auth);
    closers.push(auth.close, rs.close);
    return { auth, rs };
  };
  const rejection = async (label: string, promise: Promise<unknown>) => {
    const error = await promise.then(
      () => assert.fail(`${label}: resolved, an AuthError was expected`),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof AuthError, `${label}: ${String(error)}`);
    observe(`${label}: rejection`, error);
    labels.push(label);
  };
  try {
    {
      const { auth, rs } = await setup({ expiresIn: 1, authMethods: ['client_secret_post'] });
      const store = new MemoryTokenStore();
      const p = provider(rs.url, { onAuthorizationUrl: headlessConsent, store }, 'auth-ok');
      observe('success: answer', await call(p, rs.url));
      await sleep(1000);
      observe('refresh: answer', await call(p, rs.url));
      observe('provider', p);
      observe('store', store);
      auth.options.tokenError = {
        error: 'temporarily_unavailable',
        error_description: `no: ${auth.issued.at(-1)}`,
      };
      await sleep(1000);
      await rejection('refresh refused, the server echoing the refresh token', call(p, rs.url));
    }
    {
      const { rs } = await setup({ issInRedirect: 'wrong' });
      await rejection(
        'iss mismatch',
        call(provider(rs.url, { onAuthorizationUrl: headlessConsent }, 'auth-iss'), rs.url),
      );
    }
    {
      const { rs } = await setup();
      const forged = async (url: URL) => {
        const landed = new URL(await headlessConsent(url));
        landed.searchParams.set('state', 'forged');
        return landed;
      };
      await rejection(
        'state mismatch',
        call(provider(rs.url, { onAuthorizationUrl: forged }, 'auth-state'), rs.url),
      );
    }
    {
      const secret = `pre-${randomBytes(12).toString('hex')}`;
      credentials.push(secret);
      const { rs } = await setup({
        registration: false,
        authMethods: ['client_secret_basic'],
        clients: [{ id: 'pre', secret, method: 'client_secret_basic' }],
        tokenError: { error: 'invalid_client', error_description: `the secret ${secret} is wrong` },
      });
      const p = provider(
        rs.url,
        { onAuthorizationUrl: headlessConsent, clientId: 'pre', clientSecret: new Secret(secret) },
        'auth-echo',
      );
      await rejection('token error echoing the client secret', call(p, rs.url));
    }
    {
      const { rs } = await setup({}, { forever401: true });
      await rejection(
        '401 forever',
        call(provider(rs.url, { onAuthorizationUrl: headlessConsent }, 'auth-401'), rs.url),
      );
    }
    {
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const pem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      credentials.push(...pem.split('\n').filter((line) => line.length > 0 && !line.startsWith('-----')));
      const { rs } = await setup({
        registration: false,
        authMethods: ['private_key_jwt'],
        clients: [
          {
            id: 'm',
            method: 'private_key_jwt',
            publicKeyPem: other.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          },
        ],
      });
      const p = provider(
        rs.url,
        { grant: 'client_credentials', clientId: 'm', privateKey: new Secret(pem) },
        'auth-jwt',
      );
      await rejection('private_key_jwt with a key the server does not know', call(p, rs.url));
      const wrongAlg = provider(
        rs.url,
        {
          grant: 'client_credentials',
          clientId: 'm',
          privateKey: new Secret(pem),
          signingAlgorithm: 'RS256',
        },
        'auth-alg',
      );
      await rejection('private_key_jwt with an algorithm that does not fit the key', call(wrongAlg, rs.url));
      const garbage = `not-a-key-${randomBytes(8).toString('hex')}`;
      credentials.push(garbage);
      const broken = provider(
        rs.url,
        { grant: 'client_credentials', clientId: 'm', privateKey: new Secret(garbage) },
        'auth-pem',
      );
      await rejection('a private key that is not PEM', call(broken, rs.url));
    }
    {
      const workload = `wif.${randomBytes(12).toString('hex')}.sig`;
      const rotated = `wif.${randomBytes(12).toString('hex')}.sig`;
      credentials.push(workload, rotated);
      const { auth, rs } = await setup({ assertions: [workload, rotated], expiresIn: 1 });
      let current = workload;
      const p = provider(rs.url, { grant: 'jwt_bearer', assertion: () => current }, 'auth-wif');
      observe('jwt-bearer: answer', await call(p, rs.url));
      current = rotated;
      await sleep(1100);
      observe('jwt-bearer after expiry: answer', await call(p, rs.url));
      observe('jwt-bearer provider', p);
      const scoped = provider(
        rs.url,
        { grant: 'jwt_bearer', assertion: new Secret(workload), scopes: ['wif.rejected'] },
        'auth-wif-scope',
      );
      await rejection('jwt-bearer invalid_scope', call(scoped, rs.url));
      auth.options.tokenError = {
        error: 'invalid_grant',
        error_description: `the assertion ${rotated} is expired`,
      };
      await sleep(1100);
      await rejection('jwt-bearer refused, the server echoing the assertion', call(p, rs.url));
    }
    {
      const { rs } = await setup();
      const p = provider(
        rs.url,
        { authorizationTimeout: 200, onAuthorizationUrl: async () => undefined },
        'auth-timeout',
      );
      await rejection('loopback listener timeout', call(p, rs.url));
    }
  } finally {
    await Promise.all(closers.map((close) => close()));
  }
  for (const server of servers) {
    credentials.push(...server.issued);
    for (const request of server.requests) {
      const verifier = request.form.get('code_verifier');
      if (verifier) credentials.push(verifier);
      const assertion = request.form.get('client_assertion');
      if (assertion) credentials.push(assertion.split('.')[2]!);
    }
  }
  return { labels, credentials };
}
