// The HTTP libraries load only when an HTTP transport starts; a server that stops reading one
// large POST body stalls only that request.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '../../../src/index.js';
import { DISCOVER_RESULT } from '../../helpers/http.js';

const root = path.resolve(import.meta.dirname, '../../..');

test('undici and eventsource-parser are not loaded until an HTTP transport starts', async () => {
  const script = `
    import { createRequire } from 'node:module';
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules\\/(undici|eventsource-parser)\\//.test(k)).length > 0;
    const { Client, HttpTransport } = await import('./src/index.ts');
    new Client({ name: 'x', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    const before = loaded();
    const t = new HttpTransport({ url: 'http://127.0.0.1:9/mcp' });
    await t.start();
    await t.close();
    console.log(JSON.stringify({ before, after: loaded() }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: root,
      timeout: 30_000,
    },
  );
  assert.deepEqual(JSON.parse(stdout), { before: false, after: true });
});

test('a server that stops reading a large POST body stalls only that request', async () => {
  const server = createServer((req, res) => {
    if (Number(req.headers['content-length']) > 1024 * 1024) {
      req.pause(); // never read, never answer
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const result =
        message.method === 'server/discover'
          ? DISCOVER_RESULT
          : { content: [{ type: 'text', text: 'small' }] };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const client = new Client({ name: 'stall', transport: { type: 'http', url } });
  await client.connect();
  const stop = new AbortController();
  const big = client.callTool(
    { name: 'big', arguments: { blob: 'x'.repeat(16 * 1024 * 1024) } },
    // Far longer than the bound below: a small call queued behind the stalled one would wait for it.
    { timeout: 120_000, signal: stop.signal },
  );
  const started = performance.now();
  const small = await client.callTool({ name: 'small', arguments: {} });
  const elapsed = performance.now() - started;
  assert.equal((small as { content: Array<{ text: string }> }).content[0]!.text, 'small');
  assert.ok(elapsed < 30_000, `the small call took ${elapsed} ms beside the stalled one`);
  stop.abort();
  await assert.rejects(big, (error) => (error as Error).name === 'AbortError');
  await client.close();
});
