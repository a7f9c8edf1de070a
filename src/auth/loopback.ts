import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A one-shot HTTP listener on 127.0.0.1 that catches the authorization server's redirect. */
export interface LoopbackListener {
  /** `http://127.0.0.1:<port><path>`, to register and send as `redirect_uri`. */
  readonly redirectUri: string;
  /** The full URL the browser was sent back to, once one carrying our `state` arrives. */
  readonly callback: Promise<URL>;
  /** Stops listening and drops every connection; safe to call more than once. */
  close(): Promise<void>;
}

const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Authorized</title><p>Authorization is complete. You can close this window.</p>';

/** True when the built-in listener can serve `redirectUrl`: plain http to 127.0.0.1 or localhost, with a port. */
export function listenable(redirectUrl: URL | undefined): boolean {
  if (!redirectUrl) return true;
  return (
    redirectUrl.protocol === 'http:' &&
    (redirectUrl.hostname === '127.0.0.1' || redirectUrl.hostname === 'localhost') &&
    redirectUrl.port !== ''
  );
}

/**
 * Listens on 127.0.0.1 (the port of `redirectUrl`, else an ephemeral one) for `GET <path>` with
 * `state` equal to ours. Requests with another state (a stray tab, another program) get a 400 and
 * the listener keeps waiting; nothing else is served.
 */
export async function startLoopbackListener(
  redirectUrl: URL | undefined,
  state: string,
): Promise<LoopbackListener> {
  const path = redirectUrl?.pathname && redirectUrl.pathname !== '/' ? redirectUrl.pathname : '/callback';
  const host = redirectUrl?.hostname ?? '127.0.0.1';
  let deliver!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== path) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('this is not the authorization this program is waiting for');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
      .end(DONE_PAGE);
    deliver(
      new URL(`${url.pathname}${url.search}`, `http://${host}:${(server.address() as AddressInfo).port}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(redirectUrl?.port || 0), '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    redirectUri: redirectUrl ? redirectUrl.href : `http://127.0.0.1:${port}${path}`,
    callback,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
