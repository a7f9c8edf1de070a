import path from 'node:path';
import { startAuthServer } from '../fixtures/auth/authorization-server.js';
import { closeLater } from '../helpers/auth-setup.js';
import { fixture } from '../helpers/fixtures.js';
import { startProtectedMcp } from '../helpers/protected-mcp.js';

const root = path.resolve(import.meta.dirname, '../..');
/** A published server's entry point, run with this Node (no npx in between). */
export const published = (name: string) =>
  path.join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js');

export const node = process.execPath;

/** A stdio transport spec for a fixture server. */
export function fixtureTransport(name: string, args: string[] = []) {
  return {
    type: 'stdio' as const,
    command: node,
    args: [fixture(name), ...args],
    stderr: 'discard' as const,
  };
}

/** Names every main model API accepts. */
export const MODEL_SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The official SDK's MCP server (v1) over HTTP on 127.0.0.1, behind the loopback authorization server. */
export async function protectedServer() {
  const auth = await startAuthServer({ scopesSupported: ['mcp'] });
  closeLater(auth.close);
  const mcp = await startProtectedMcp(auth, 'v1');
  return { auth, mcp };
}
