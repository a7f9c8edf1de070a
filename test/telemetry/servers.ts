// The trace server over stdio and over HTTP, in either era.
import path from 'node:path';
import type { ClientOptions } from '../../src/index.js';
import { legacy, modern, plainServer, result, type Seen } from '../helpers/http.js';
// @ts-expect-error: a plain JavaScript fixture, without types
import { answer } from './trace-server.mjs';

export type Era = 'modern' | 'legacy';
export type Kind = 'stdio' | 'http';

const script = path.join(import.meta.dirname, 'trace-server.mjs');

/** A transport to a trace server of that era; `close` stops an HTTP one. */
export async function traceServer(
  kind: Kind,
  era: Era,
): Promise<{ transport: ClientOptions['transport']; url?: URL; close: () => Promise<void> }> {
  if (kind === 'stdio') {
    const transport = { type: 'stdio', command: process.execPath, args: [script, '--era', era] } as const;
    return { transport, close: async () => {} };
  }
  const serve = (request: Seen, res: Parameters<typeof result>[0]) => {
    const reply = answer(request.message, era);
    if (reply === undefined || reply === 'exit') return void res.writeHead(202).end();
    if (reply.error)
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    return result(res, request, reply.result);
  };
  const server = await plainServer(era === 'modern' ? modern(serve) : legacy(serve));
  return { transport: { type: 'http', url: server.url }, url: new URL(server.url), close: server.close };
}
