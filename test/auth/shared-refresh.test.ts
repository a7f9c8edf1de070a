// A token store shared by several Clients, or several processes, refreshes once: oidc-provider
// rotates refresh tokens and revokes the whole grant when a used one comes back.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FileTokenStore, MemoryTokenStore } from '../../src/index.js';
import { browser } from '../helpers/auth-browser.js';
import { oidcClient, oidcScene, textOf } from '../helpers/auth-oidc.js';
import { closeLater } from '../helpers/auth-setup.js';

const TTL = 2; // seconds; the client refreshes 0.2 s before expiry

test('two Clients on one store object: one refresh when both find the token due, and the grant survives', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: TTL, tokenDelay: 200 });
  const store = new MemoryTokenStore();
  const a = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
  await a.connect();
  await sleep(TTL * 1000 + 100); // expired: B meets a 401, refreshes, and so has discovered too
  const b = oidcClient(mcp.url, { store, onAuthorizationUrl: browser() });
  await b.connect();
  assert.equal(as.issued('refresh_token'), 1);
  for (let round = 1; round <= 2; round++) {
    await sleep(TTL * 1000 + 100); // both hold the same due token
    const [fromA, fromB] = await Promise.all([
      a.callTool({ name: 'echo', arguments: { text: `a${round}` } }),
      b.callTool({ name: 'echo', arguments: { text: `b${round}` } }),
    ]);
    assert.deepEqual([textOf(fromA), textOf(fromB)], [`a${round}`, `b${round}`]);
    assert.equal(as.issued('refresh_token'), 1 + round, `round ${round}: one refresh for both`);
  }
  assert.deepEqual(as.revokedGrants, [], 'no refresh token was used twice');
  assert.equal(as.issued('authorization_code'), 1);
});

function child(
  url: string,
  file: string,
): { process: ChildProcessWithoutNullStreams; lines: AsyncIterator<string> } {
  const script = fileURLToPath(new URL('../fixtures/auth/refresh-child.ts', import.meta.url));
  const started = spawn(process.execPath, ['--import', 'tsx', script, url, file], { stdio: 'pipe' });
  closeLater(async () => {
    if (started.exitCode === null && started.signalCode === null) started.kill();
  });
  let stderr = '';
  started.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  started.on('exit', (code) => {
    if (code) process.stderr.write(`refresh-child exited ${code}: ${stderr}\n`);
  });
  return { process: started, lines: createInterface({ input: started.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const next = await Promise.race([lines.next(), sleep(30_000).then(() => undefined)]);
  assert.ok(next && !next.done, 'the child process answered within 30 s');
  return next.value;
}

test('two processes on one FileTokenStore file: one refresh, the grant survives, no lock left behind', async () => {
  const { as, mcp } = await oidcScene({ accessTokenTtl: TTL, tokenDelay: 200 });
  const directory = mkdtempSync(path.join(tmpdir(), 'conduit-shared-'));
  const file = path.join(directory, 'tokens.json');
  const first = oidcClient(mcp.url, { store: new FileTokenStore(file), onAuthorizationUrl: browser() });
  await first.connect();
  await first.close();
  const children = [child(mcp.url, file), child(mcp.url, file)];
  for (const { lines } of children) assert.equal(await nextLine(lines), 'ready');
  const before = as.issued('refresh_token'); // a slow start may have met an expired token already
  for (let round = 1; round <= 2; round++) {
    await sleep(TTL * 1000 + 100); // the stored access token has expired
    for (const [i, { process: p }] of children.entries()) p.stdin.write(`p${i}r${round}\n`);
    const answers = await Promise.all(children.map(({ lines }) => nextLine(lines)));
    assert.deepEqual(
      answers.map((line) => JSON.parse(line)),
      children.map((_, i) => ({ ok: `p${i}r${round}` })),
    );
    assert.equal(
      as.issued('refresh_token'),
      before + round,
      `round ${round}: one refresh for both processes`,
    );
  }
  assert.deepEqual(as.revokedGrants, [], 'no refresh token was used twice');
  for (const { process: p } of children) {
    p.stdin.end();
    await new Promise((resolve) => (p.exitCode === null ? p.once('exit', resolve) : resolve(undefined)));
  }
  assert.deepEqual(readdirSync(directory), ['tokens.json']);
});

test('FileTokenStore.lock: another holder of the file waits for the lock; a lock a dead process left (stale) is taken over', async () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'conduit-lock-'));
  const file = path.join(directory, 'tokens.json');
  mkdirSync(`${file}.lock`);
  const longAgo = new Date(Date.now() - 60_000);
  utimesSync(`${file}.lock`, longAgo, longAgo); // left by a process that died a minute ago
  const order: string[] = [];
  await new FileTokenStore(file).lock('k', async () => {
    order.push('took over');
  });
  const [a, b] = [new FileTokenStore(file), new FileTokenStore(file)];
  let release: () => void = () => {};
  let entered: () => void = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const held = a.lock('k', async () => {
    order.push('a in');
    entered();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    order.push('a out');
  });
  await inside;
  const second = b.lock('k', async () => {
    order.push('b in');
  });
  await sleep(500);
  assert.deepEqual(order, ['took over', 'a in'], 'b waits while a holds the file');
  release();
  await Promise.all([held, second]);
  assert.deepEqual(order, ['took over', 'a in', 'a out', 'b in']);
  assert.deepEqual(readdirSync(directory), [], 'no lock left behind');
});
