import { after } from 'node:test';
import {
  type AuthServer,
  type AuthServerOptions,
  startAuthServer,
} from '../fixtures/auth/authorization-server.js';
import {
  type ProtectedResource,
  type ResourceOptions,
  startProtectedResource,
} from '../fixtures/auth/protected-resource.js';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** Closes `close` when the test file ends. */
export function closeLater(close: () => Promise<void>): void {
  closers.push(close);
}

/** An authorization server and a resource protected by it, both on 127.0.0.1. */
export async function setup(
  as: AuthServerOptions = {},
  resource: Partial<ResourceOptions> = {},
): Promise<{ auth: AuthServer; rs: ProtectedResource }> {
  const auth = await startAuthServer(as);
  const rs = await startProtectedResource({
    prm: 'header',
    authorizationServers: () => [auth.issuer],
    validate: (token) => auth.accessTokens.get(token)?.scope,
    ...resource,
  });
  closers.push(auth.close, rs.close);
  return { auth, rs };
}

export function paths(auth: AuthServer): string[] {
  return auth.requests.map((r) => r.path);
}
