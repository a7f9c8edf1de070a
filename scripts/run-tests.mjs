// Runs every test/**/*.test.ts with Node's built-in runner (TypeScript through tsx), except the
// Windows lane's (test/windows, npm run test:windows) and, without a filter, the files of OWN_LANE,
// which a CI lane runs by naming them.
// Usage: node scripts/run-tests.mjs [--shard=i/n] [substring filter...]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');

function findTests(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    // test/windows runs on Windows Node: npm run test:windows.
    if (entry.isDirectory()) return ['fixtures', 'windows'].includes(entry.name) ? [] : findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

// Files that a lane of .ci/run runs, with the lane: left out of the run without a filter (npm test,
// the Node lines' shards), run when a filter matches them.
const OWN_LANE = {
  // More runs and seeds than npm test gave them, and on the newest line as well.
  'test/reliability/chaos.test.ts': 'scripts/ci/lifecycle-chaos.sh',
  'test/reliability/http-chaos.test.ts': 'scripts/ci/lifecycle-chaos.sh',
  // scripts/ci/oldest-node.sh: the packed tarball, installed once, on the oldest Node `engines`
  // allows, the newest line and the system's.
  'test/package.test.ts': 'scripts/ci/oldest-node.sh',
  // scripts/ci/docs-reference.sh, beside the check that docs/reference is current.
  'test/docs/reference.test.ts': 'scripts/ci/docs-reference.sh',
};

// A filter matches the file's path from the repository root (test/auth/client.test.ts), never the
// directories above it: a clone under /home/test/ must not match every file for "test/".
// --shard=i/n (CI's extra Node lines): the i-th of n slices of the sorted files, every n-th file.
// --without=<substring> (repeatable): leaves out the files whose path contains it.
const shardArgument = process.argv.slice(2).find((argument) => argument.startsWith('--shard='));
const without = process.argv
  .slice(2)
  .filter((argument) => argument.startsWith('--without='))
  .map((argument) => argument.slice('--without='.length));
const shard = shardArgument?.slice('--shard='.length).split('/').map(Number);
if (shard && !(shard.length === 2 && shard[0] >= 1 && shard[0] <= shard[1])) {
  console.error(`--shard takes i/n with 1 <= i <= n, got ${shardArgument}`);
  process.exit(2);
}
const filters = process.argv
  .slice(2)
  .filter((argument) => argument !== shardArgument && !argument.startsWith('--without='))
  .map((filter) => filter.replaceAll('\\', '/').replace(/^\.\//, ''));
// The longest files start first, so that the run does not end waiting on one of them alone.
const LONGEST = [
  'test/docs/examples-1.test.ts',
  'test/docs/examples-2.test.ts',
  'test/docs/examples-3.test.ts',
  'test/cli/oauth.test.ts',
  'test/cli/http.test.ts',
  'test/interop/everything-features.test.ts',
  'test/pool/pool.test.ts',
  'test/client/features.test.ts',
  'test/cli/failures.test.ts',
  'test/cli/interactive.test.ts',
  'test/reliability/chaos.test.ts',
  'test/interop/sdk-modern-features.test.ts',
  'test/interop/python-features.test.ts',
  'test/reliability/hostile.test.ts',
  'test/interop/published-servers.test.ts',
  'test/cli/arguments.test.ts',
  'test/cli/cli.test.ts',
  'test/reliability/http-chaos.test.ts',
  'test/auth/shared-refresh.test.ts',
];
const rank = (file) => {
  const index = LONGEST.indexOf(path.relative(root, file).replaceAll(path.sep, '/'));
  return index === -1 ? LONGEST.length : index;
};
const files = findTests(path.join(root, 'test'))
  .filter((file) => {
    const relative = path.relative(root, file).replaceAll(path.sep, '/');
    if (without.some((part) => relative.includes(part))) return false;
    if (filters.length === 0) return !(relative in OWN_LANE);
    return filters.some((filter) => relative.includes(filter));
  })
  .sort()
  .filter((_, index) => shard === undefined || index % shard[1] === shard[0] - 1)
  .sort((a, b) => rank(a) - rank(b));
if (files.length === 0) {
  console.error(`no test file matches ${filters.join(' ')}`);
  process.exit(1);
}
// What the tests write under the user's conduit-mcp directory (a config file's tools manifest and
// pins, the command's tokens) goes to a directory of this run, never to the real home.
const configHome = mkdtempSync(path.join(tmpdir(), 'conduit-tests-config-'));
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    // Fails the run on any unhandled rejection or uncaught exception, in every test file.
    '--import',
    pathToFileURL(path.join(root, 'test/helpers/escape-guard.mjs')).href,
    '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`,
    '--test-timeout=120000',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', cwd: root, env: { ...process.env, XDG_CONFIG_HOME: configHome } },
);
child.on('exit', (code, signal) => {
  rmSync(configHome, { recursive: true, force: true });
  process.exit(signal ? 1 : (code ?? 1));
});
