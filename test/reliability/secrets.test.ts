// A Secret in a server's env, and every error path a client can take: the value (or any 8
// characters of it) must appear in no error (message, stack, cause), no event payload, no
// diagnostics channel payload and no debug log line. test/transport/stdio/launch.test.ts covers
// the transport's own launch; this covers the client-level paths.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dc from 'node:diagnostics_channel';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { declaredChannels } from '../helpers/channels.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { renderings } from '../helpers/renderings.js';
import { provokeEveryErrorPath } from '../helpers/secret-scenarios.js';

guardProcesses();

const root = path.resolve(import.meta.dirname, '../..');
const value = `s3cr3t-${randomBytes(12).toString('hex')}`;
/** Every 8-character piece of the value: a truncated excerpt leaks too. */
const pieces = Array.from({ length: value.length - 7 }, (_, i) => value.slice(i, i + 8));
const leak = (text: string) => pieces.find((piece) => text.includes(piece));

test('on every error path, the Secret is in no error, event payload or diagnostics channel payload', async (t) => {
  const names = declaredChannels();
  assert.ok(names.length >= 12, names.join(', '));
  const published = new Map<string, number>();
  const seen: Array<{ label: string; text: string }> = [];
  const onMessage = (message: unknown, name: string | symbol) => {
    published.set(String(name), (published.get(String(name)) ?? 0) + 1);
    seen.push({ label: `channel ${String(name)}`, text: renderings(message) });
  };
  for (const name of names) dc.subscribe(name, onMessage);
  let done: string[];
  try {
    done = await provokeEveryErrorPath(value, temporaryDirectory(), (label, thing) =>
      seen.push({ label, text: renderings(thing) }),
    );
  } finally {
    for (const name of names) dc.unsubscribe(name, onMessage);
  }
  t.diagnostic(
    `${done.length} paths, ${seen.length} things rendered, channels: ${[...published].map(([name, n]) => `${name} ${n}`).join(', ')}`,
  );
  assert.equal(done.length, 10);
  // Each channel carried something, so each payload kind was checked. The auth channel's paths
  // need an authorization server: test/reliability/auth-secrets.test.ts checks that one.
  for (const name of names) {
    if (name === 'conduit-mcp:auth') continue;
    assert.ok(published.has(name), `nothing was published on ${name}`);
  }
  const rejections = seen.filter(({ label }) => label.endsWith('rejection'));
  assert.ok(rejections.length >= 15, `${rejections.length} rejections`);
  for (const { label, text } of seen) {
    const found = leak(text);
    assert.equal(found, undefined, `${label} shows "${found}" of the Secret:\n${text.slice(0, 2000)}`);
  }
});

test('NODE_DEBUG=conduit-mcp logs every error path, never the Secret', async () => {
  const host = path.join(root, 'test/fixtures/hosts/secret-paths.ts');
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', host, value, temporaryDirectory()],
    {
      cwd: root,
      env: { ...process.env, NODE_DEBUG: 'conduit-mcp' },
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  assert.equal((JSON.parse(stdout) as string[]).length, 10);
  // The log did cover the paths: spawns, failures, junk, signals, restarts, giving up.
  for (const pattern of [
    /: spawned /,
    /conduit-no-such-server-7 was not found in PATH=\[Secret\]/,
    /: closed \(the server exited with status 3\)/,
    /: dropped a line of \d+ bytes from the server/,
    /: sending SIGKILL to process group/,
    /: reconnect attempt 1/,
    /: giving up/,
    /write_queue_full|stopped reading/,
  ]) {
    assert.match(stderr, pattern);
  }
  const lines = stderr.split('\n');
  const leaking = lines.filter((line) => leak(line) !== undefined);
  assert.deepEqual(leaking, [], `debug lines show the Secret (${lines.length} lines logged)`);
});
