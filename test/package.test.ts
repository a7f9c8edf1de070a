// The package as users get it: pack it, install the tarball into a fresh project, import it, run its
// command on the demo server and a short Client script. CONDUIT_SMOKE_NODE names the Node binaries
// to run the installed package with, separated by the path delimiter (: or ;), one test each; it is
// installed once for all. CI's lane scripts/ci/oldest-node.sh runs this file (npm test does not):
// the oldest version `engines` allows, the newest line and the system's Node.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '..');
const smokeNodes = (process.env.CONDUIT_SMOKE_NODE ?? process.execPath).split(path.delimiter);
const demoServer = path.join(repoRoot, 'examples', 'demo-server.mjs');

// Under `npm test` the environment carries npm_config_local_prefix=<repo> and the like, which
// would make the nested npm commands act on this repository instead of the temporary project.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, { cwd, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const nodeVersions = await Promise.all(
  smokeNodes.map(async (smokeNode) => (await run(smokeNode, ['--version'])).stdout.trim()),
);

interface Installed {
  /** The consumer project the tarball is installed in. */
  project: string;
  /** The package as installed: node_modules/conduit-mcp. */
  installed: string;
  /** Every file the tarball holds, relative to the package root, with / separators. */
  files: string[];
}

let installing: Promise<Installed> | undefined;
let directory: string | undefined;
after(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** Packs the repository and installs the tarball into a fresh project, once for this file. */
function packAndInstall(): Promise<Installed> {
  installing ??= (async () => {
    if (!existsSync(path.join(repoRoot, 'dist/index.js'))) await npm(['run', 'build'], repoRoot);
    directory = mkdtempSync(path.join(tmpdir(), 'conduit-pack-'));

    // --ignore-scripts: pack the dist/ that `npm test` (or the line above) built, without rebuilding it.
    const packed = JSON.parse(
      await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', directory], repoRoot),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = path.join(directory, packed[0]!.filename);
    assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);
    assert.ok(!existsSync(path.join(repoRoot, packed[0]!.filename)), 'no tarball left in the repository');
    const files = packed[0]!.files.map((file) => file.path);

    const project = path.join(directory, 'consumer');
    mkdirSync(project);
    await npm(['init', '-y'], project);
    const install = ['install', tarball, '--no-audit', '--no-fund'];
    try {
      await npm([...install, '--offline'], project);
    } catch {
      await npm(install, project);
    }
    return { project, installed: path.join(project, 'node_modules', 'conduit-mcp'), files };
  })();
  return installing;
}

smokeNodes.forEach((smokeNode, index) => {
  const nodeVersion = nodeVersions[index];
  test(`the packed tarball installs, exports the public API with types, and runs on Node ${nodeVersion}`, {
    timeout: 300_000,
  }, async () => {
    const { project, installed, files } = await packAndInstall();
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), files.join(', '));
    assert.ok(!files.some((file) => file.startsWith('src/') || file.startsWith('test/')), files.join(', '));

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
    const { stdout } = await run(smokeNode, ['check.mjs'], { cwd: project, env, timeout: 30_000 }).catch(
      (error: { stderr?: string }) => assert.fail(`importing the installed package failed:\n${error.stderr}`),
    );
    assert.deepEqual(JSON.parse(stdout), {
      Client: 'function',
      StdioTransport: 'function',
      Secret: 'function',
      ConfigError: 'function',
    });

    // The command, from the installed bin, on the demo server (run by the same Node).
    const bin = path.join(project, 'node_modules', 'conduit-mcp', 'dist', 'cli', 'main.js');
    const inspect = await run(smokeNode, [bin, 'inspect', '--', smokeNode, demoServer], {
      cwd: project,
      env,
      timeout: 60_000,
    }).catch((error: { stderr?: string }) => assert.fail(`conduit-mcp inspect failed:\n${error.stderr}`));
    assert.match(inspect.stdout, /conduit-demo/);
    assert.match(inspect.stdout, /countdown/);
    // A call checks its arguments with the lazily loaded JSON Schema library: a declared dependency.
    const call = await run(
      smokeNode,
      [bin, 'call', 'add', '--arg', 'a=1', '--arg', 'b=2', '--', smokeNode, demoServer],
      {
        cwd: project,
        env,
        timeout: 60_000,
      },
    ).catch((error: { stderr?: string }) => assert.fail(`conduit-mcp call failed:\n${error.stderr}`));
    assert.equal(call.stdout, '3\n');
    const refused = await run(smokeNode, [bin, 'call', 'add', '--arg', 'a=1', '--', smokeNode, demoServer], {
      cwd: project,
      env,
      timeout: 60_000,
    }).then(
      () => assert.fail('a call without its required argument b was sent'),
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr ?? '', /add: missing required argument b/);

    // A Client script: connect, call a tool with progress, trace the request, close.
    writeFileSync(
      path.join(project, 'client.mjs'),
      `import dc from 'node:diagnostics_channel';
import { Client } from 'conduit-mcp';
const traced = [];
dc.tracingChannel('conduit-mcp:request').subscribe({
  start: (message) => traced.push(message.method), end() {}, asyncStart() {}, asyncEnd() {}, error() {},
});
const client = new Client({ name: 'demo', transport: { type: 'stdio', command: process.execPath, args: [${JSON.stringify(demoServer)}] } });
await client.connect();
let progress = 0;
const result = await client.callTool({ name: 'countdown', arguments: { from: 3, delayMs: 1 } }, { onProgress: () => progress++ });
await client.close();
console.log(JSON.stringify({ era: client.era, state: client.state, text: result.content[0].text, progress, traced }));
`,
    );
    const script = await run(smokeNode, ['client.mjs'], { cwd: project, env, timeout: 60_000 }).catch(
      (error: { stderr?: string }) => assert.fail(`the Client script failed:\n${error.stderr}`),
    );
    const outcome = JSON.parse(script.stdout) as {
      era: string;
      state: string;
      text: string;
      progress: number;
      traced: string[];
    };
    assert.equal(outcome.era, 'modern');
    assert.equal(outcome.state, 'closed');
    assert.match(outcome.text, /\S/);
    assert.equal(outcome.progress, 3);
    assert.ok(
      outcome.traced.includes('tools/call'),
      `requests are traced on ${nodeVersion}: ${outcome.traced.join(', ')}`,
    );
  });
});

test('every source map in the tarball is complete: each source is inlined or shipped, each map shipped', {
  timeout: 300_000,
}, async () => {
  const { installed, files } = await packAndInstall();
  const shipped = new Set(files);
  const maps = files.filter((file) => file.endsWith('.map'));
  assert.ok(maps.length > 0, 'the package ships source maps (for its stack traces)');
  const problems: string[] = [];
  for (const file of files.filter((name) => /\.(js|d\.ts)$/.test(name))) {
    const text = readFileSync(path.join(installed, file), 'utf8');
    const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
    if (url === undefined) continue;
    const target = path.posix.join(path.posix.dirname(file), url);
    if (!shipped.has(target))
      problems.push(`${file} names the map ${url}, which the package does not contain`);
  }
  for (const file of maps) {
    const map = JSON.parse(readFileSync(path.join(installed, file), 'utf8')) as {
      sources: string[];
      sourceRoot?: string;
      sourcesContent?: Array<string | null>;
    };
    map.sources.forEach((source, index) => {
      if (typeof map.sourcesContent?.[index] === 'string') return;
      const target = path.posix.join(path.posix.dirname(file), map.sourceRoot ?? '', source);
      if (!shipped.has(target)) {
        problems.push(`${file} points at ${source} (${target}), neither inlined nor in the package`);
      }
    });
  }
  assert.deepEqual(problems, []);
});
