import assert from 'node:assert/strict';
import { after } from 'node:test';
import { AuthError } from '../../src/index.js';
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

/**
 * The 2025-03-26 layout: no protected resource metadata, the authorization server served from the
 * resource's own origin (its handler mounted behind the resource's).
 */
export async function sameOriginSetup(
  as: AuthServerOptions = {},
): Promise<{ auth: AuthServer; rs: ProtectedResource }> {
  const auth = await startAuthServer(as);
  const rs = await startProtectedResource({
    prm: 'none',
    authorizationServers: () => [],
    validate: (token) => auth.accessTokens.get(token)?.scope,
    extra: auth.handler,
  });
  auth.adopt(rs.origin);
  closers.push(auth.close, rs.close);
  return { auth, rs };
}

/** The AuthError `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function authError(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => assert.fail('resolved; an AuthError was expected'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof AuthError, String(error));
  return error;
}

export function paths(auth: AuthServer): string[] {
  return auth.requests.map((r) => r.path);
}
