// `npm run conformance:serve`: the official MCP conformance runner's server scenarios against
// `conduit-mcp serve --http` fronting @modelcontextprotocol/server-everything (over stdio), and
// against server-everything directly (its own Streamable HTTP mode), with both pinned runners
// (0.1.16 and conformance-next). Prints one table, scenario by scenario, and fails when the gateway
// fails a scenario that server-everything passes directly (what the gateway would lose). The
// scenarios are written for the runner's own test server (tools named test_simple_text, ...), so
// most of them fail on both paths: server-everything has other tools; docs/serve.md explains each.
// The runner needs Node 22+; CONFORMANCE_NODE names one, else scripts/ci/install-node.sh 22 provides it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNERS = [
  { label: '0.1.16', entry: 'node_modules/@modelcontextprotocol/conformance/dist/index.js' },
  { label: '0.2.0-alpha.12', entry: 'node_modules/conformance-next/dist/index.js' },
];
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// server-everything's HTTP mode listens on every interface; this keeps it on loopback.
const LOOPBACK_ONLY = `data:text/javascript,${encodeURIComponent(
  "import http from 'node:http'; const listen = http.Server.prototype.listen; http.Server.prototype.listen = function (port, ...rest) { return listen.call(this, port, '127.0.0.1', ...rest.filter((a) => typeof a === 'function')); };",
)}`;

const node22 = process.env.CONFORMANCE_NODE ?? installNode22();
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });

function installNode22() {
  return execFileSync(join(root, 'scripts/ci/install-node.sh'), ['22'], { encoding: 'utf8' }).trim();
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `args` with node; resolves with the child and the first `pattern` match on its stderr. */
function start(args, pattern, env = process.env) {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in 30 s`)), 30_000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      const match = pattern.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`)));
  });
}

/** Every scenario's status (SUCCESS when every check passed) from one runner against `url`. */
function runScenarios(runner, url) {
  const out = mkdtempSync(join(tmpdir(), 'conduit-conformance-serve-'));
  try {
    spawnSync(node22, [join(root, runner.entry), 'server', '--url', url, '-o', out], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 300_000,
    });
    const results = new Map();
    for (const folder of readdirSync(out)) {
      const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      const checks = JSON.parse(readFileSync(join(out, folder, 'checks.json'), 'utf8'));
      const failed = checks.filter((check) => check.status === 'FAILURE');
      const warned = checks.filter((check) => check.status === 'WARNING');
      const why = (check) =>
        String(check.errorMessage ?? check.details?.message ?? check.status)
          .replace(/\s+/g, ' ')
          .slice(0, 90);
      results.set(
        scenario,
        failed.length > 0
          ? `FAIL: ${why(failed[0])}`
          : warned.length > 0
            ? `warning: ${why(warned[0])}`
            : `pass (${checks.length})`,
      );
    }
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const port = await freePort();
const direct = await start(['--import', LOOPBACK_ONLY, EVERYTHING, 'streamableHttp'], /listening on port/, {
  ...process.env,
  PORT: String(port),
});
const gateway = await start(
  [
    join(root, 'dist/cli/main.js'),
    'serve',
    '--http',
    '127.0.0.1:0',
    '--',
    process.execPath,
    EVERYTHING,
    'stdio',
  ],
  /serving \d+ server\(s\) at (\S+)/,
);
let lost = 0;
try {
  for (const runner of RUNNERS) {
    const viaGateway = runScenarios(runner, gateway.match[1]);
    const directly = runScenarios(runner, `http://127.0.0.1:${port}/mcp`);
    console.log(
      `\nrunner ${runner.label}\n\n| scenario | server-everything directly | through conduit-mcp serve |\n|---|---|---|`,
    );
    for (const scenario of new Set([...directly.keys(), ...viaGateway.keys()])) {
      const [d, g] = [directly.get(scenario) ?? '(not run)', viaGateway.get(scenario) ?? '(not run)'];
      if (!d.startsWith('FAIL') && g.startsWith('FAIL')) lost++;
      console.log(`| ${scenario} | ${d} | ${g} |`);
    }
  }
} finally {
  for (const { child } of [direct, gateway]) child.kill('SIGTERM');
}
if (lost > 0) {
  console.error(`\n${lost} scenario(s) pass directly and fail through the gateway`);
  process.exit(1);
}
console.log('\nthe gateway fails no scenario that server-everything passes directly');
