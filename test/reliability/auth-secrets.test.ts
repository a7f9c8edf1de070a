// Every auth path, success and failure: no token, code, verifier, client secret, private key or
// workload assertion (nor any 12 characters of one) in an error (message, stack, cause,
// properties), a rendering of the provider or the store, a diagnostics channel payload or a debug
// log line.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { provokeAuthPaths } from '../helpers/auth-secret-scenarios.js';
import { renderings } from '../helpers/renderings.js';

const root = path.resolve(import.meta.dirname, '../..');
const LABELS = 11;

function leakFinder(credentials: string[]): (text: string) => string | undefined {
  const pieces = credentials.flatMap((value) =>
    value.length <= 12
      ? [value]
      : Array.from({ length: value.length - 11 }, (_, i) => value.slice(i, i + 12)),
  );
  return (text) => pieces.find((piece) => text.includes(piece));
}

test('on every auth path, no credential is in an error, the provider, the store or the auth channel', async (t) => {
  const seen: Array<{ label: string; text: string }> = [];
  const events: string[] = [];
  const onMessage = (message: unknown) => {
    events.push(String((message as { event?: string }).event));
    seen.push({ label: 'channel conduit-mcp:auth', text: renderings(message) });
  };
  dc.subscribe('conduit-mcp:auth', onMessage);
  let result: Awaited<ReturnType<typeof provokeAuthPaths>>;
  try {
    result = await provokeAuthPaths((label, thing) => seen.push({ label, text: renderings(thing) }));
  } finally {
    dc.unsubscribe('conduit-mcp:auth', onMessage);
  }
  t.diagnostic(
    `${result.labels.length} failure paths, ${result.credentials.length} credentials, ${seen.length} renderings`,
  );
  assert.equal(result.labels.length, LABELS);
  for (const event of ['request', 'discovered', 'registered', 'authorized', 'refreshed', 'failed']) {
    assert.ok(events.includes(event), `no '${event}' event was published`);
  }
  assert.ok(result.credentials.length >= 20, `${result.credentials.length} credentials`);
  const leak = leakFinder(result.credentials);
  for (const { label, text } of seen) {
    const found = leak(text);
    assert.equal(found, undefined, `${label} shows "${found}":\n${text.slice(0, 2000)}`);
  }
  // The echoed secret was cut out, and the server's words kept.
  const echoed = seen.find(({ label }) => label.startsWith('token error echoing'))!;
  assert.match(echoed.text, /the secret \[redacted\] is wrong/);
});

test('NODE_DEBUG=conduit-mcp logs the auth paths, never a credential', async () => {
  const host = path.join(root, 'test/fixtures/hosts/auth-secret-paths.ts');
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', host], {
    cwd: root,
    env: { ...process.env, NODE_DEBUG: 'conduit-mcp' },
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const { labels, credentials } = JSON.parse(stdout) as { labels: string[]; credentials: string[] };
  assert.equal(labels.length, LABELS);
  for (const pattern of [/auth discovered/, /auth authorized/, /auth refreshed/, /auth failed/])
    assert.match(stderr, pattern);
  const leak = leakFinder(credentials);
  const leaking = stderr.split('\n').filter((line) => leak(line) !== undefined);
  assert.deepEqual(leaking, []);
});
