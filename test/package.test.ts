// The package as users get it: pack it, install the tarball into a fresh project, import it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '..');

// Under `npm test` the environment carries npm_config_local_prefix=<repo> and the like, which
// would make the nested npm commands act on this repository instead of the temporary project.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

test('the packed tarball installs and exports the public API with types', { timeout: 300_000 }, async () => {
  if (!existsSync(path.join(repoRoot, 'dist/index.js'))) await npm(['run', 'build'], repoRoot);

  const directory = mkdtempSync(path.join(tmpdir(), 'conduit-pack-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  // --ignore-scripts: pack the dist/ that `npm test` (or the line above) built, without rebuilding it.
  const packed = JSON.parse(
    await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', directory], repoRoot),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = path.join(directory, packed[0]!.filename);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);
  assert.ok(!existsSync(path.join(repoRoot, packed[0]!.filename)), 'no tarball left in the repository');
  const files = packed[0]!.files.map((file) => file.path);
  assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), files.join(', '));
  assert.ok(!files.some((file) => file.startsWith('src/') || file.startsWith('test/')), files.join(', '));

  const project = path.join(directory, 'consumer');
  mkdirSync(project);
  await npm(['init', '-y'], project);
  const install = ['install', tarball, '--no-audit', '--no-fund'];
  try {
    await npm([...install, '--offline'], project);
  } catch {
    await npm(install, project);
  }

  const installed = path.join(project, 'node_modules', 'conduit-mcp');
  assert.ok(existsSync(path.join(installed, 'dist', 'index.d.ts')), 'dist/index.d.ts is installed');

  writeFileSync(
    path.join(project, 'check.mjs'),
    `import { Client, StdioTransport, Secret, ConfigError } from 'conduit-mcp';
console.log(JSON.stringify({
  Client: typeof Client,
  StdioTransport: typeof StdioTransport,
  Secret: typeof Secret,
  ConfigError: typeof ConfigError,
}));
`,
  );
  const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: project, env, timeout: 30_000 }).catch(
    (error: { stderr?: string }) => assert.fail(`importing the installed package failed:\n${error.stderr}`),
  );
  assert.deepEqual(JSON.parse(stdout), {
    Client: 'function',
    StdioTransport: 'function',
    Secret: 'function',
    ConfigError: 'function',
  });
});
