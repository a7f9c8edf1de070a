// A real MCP server (the official SDK's, over HTTP on 127.0.0.1) protected by the test
// authorization server: path-inserted protected resource metadata, 401 with an RFC 9728
// challenge until a valid Bearer token comes, 403 insufficient_scope for tools/call when a scope
// is required, and switches a test can flip (answer 401 forever, redirect elsewhere).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthServer } from '../fixtures/auth/authorization-server.js';
import { type Guard, type RunningServer, startSdkV1, startSdkV2 } from '../fixtures/http/sdk-servers.js';
import { closeLater } from './auth-setup.js';

export interface Protection {
  /** A scope every tools/call needs (403 insufficient_scope without it). */
  toolScope?: string;
  /** The challenge's `scope`. */
  challengeScope?: string;
  /** Answer 401 whatever comes. */
  forever401?: boolean;
  /** Answer every authorized request with a 307 to this URL. */
  redirectTo?: string;
}

export interface ProtectedMcp {
  readonly server: RunningServer;
  readonly protection: Protection;
  /** The Authorization header of every request to /mcp ('' when absent). */
  authorizations(): string[];
}

function guard(auth: AuthServer, protection: Protection): Guard {
  return (req: IncomingMessage, res: ServerResponse, body: unknown, origin: string) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    const prm = `${origin}/.well-known/oauth-protected-resource/mcp`;
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [auth.issuer] }));
      return true;
    }
    if (path !== '/mcp') return false;
    const header = req.headers.authorization ?? '';
    const granted = header.startsWith('Bearer ') ? auth.accessTokens.get(header.slice(7)) : undefined;
    if (protection.forever401 || !granted) {
      const scope = protection.challengeScope ? `, scope="${protection.challengeScope}"` : '';
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${prm}"${scope}` });
      res.end();
      return true;
    }
    if (protection.redirectTo) {
      res.writeHead(307, { location: protection.redirectTo }).end();
      return true;
    }
    const method = (body as { method?: string } | undefined)?.method;
    if (method === 'tools/call' && protection.toolScope && !granted.scope.includes(protection.toolScope)) {
      res.writeHead(403, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${protection.toolScope}", resource_metadata="${prm}"`,
      });
      res.end();
      return true;
    }
    return false;
  };
}

/** The SDK 1.x (legacy era, stateful) or 2.x (modern era) server behind `auth`. */
export async function startProtectedMcp(
  auth: AuthServer,
  sdk: 'v1' | 'v2',
  protection: Protection = {},
): Promise<ProtectedMcp> {
  const options = { guard: guard(auth, protection) };
  const server = sdk === 'v1' ? await startSdkV1(options) : await startSdkV2(options);
  closeLater(server.close);
  return {
    server,
    protection,
    authorizations: () =>
      server.requests.filter((r) => r.path === '/mcp').map((r) => String(r.headers.authorization ?? '')),
  };
}
