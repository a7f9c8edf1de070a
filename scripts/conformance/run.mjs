// `npm run conformance`: runs the official MCP conformance runner, pinned twice in
// devDependencies (@modelcontextprotocol/conformance 0.1.16 and, as the alias conformance-next,
// 0.2.0-alpha.12), against scripts/conformance/client.mjs: every client scenario, auth included,
// at every wire version each runner offers for it (a `draft` or `extension` scenario of 0.1.16,
// and an extension of 0.2.0, runs once without --spec-version). No expected-failures file: a
// FAILURE or a WARNING in any run fails the whole; a scenario a runner lists that is not in
// SCENARIOS fails too, so a new one is never skipped silently, and nothing is left out by name.
// The runner needs Node 22+; CONFORMANCE_NODE names one, else scripts/ci/install-node.sh 22
// provides it.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNERS = [
  { label: '0.1.16', entry: 'node_modules/@modelcontextprotocol/conformance/dist/index.js' },
  { label: '0.2.0-alpha.12', entry: 'node_modules/conformance-next/dist/index.js' },
];
/** The client scenarios we run (issue #17: core; issues #18 and #38: auth); a runner runs those it lists. */
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/wif-jwt-bearer',
  'auth/dpop',
  'auth/dpop-nonce',
  'auth/enterprise-managed-authorization',
  'auth/cross-app-access-complete-flow',
];
const only = process.argv.slice(2);

const node22 =
  process.env.CONFORMANCE_NODE ||
  execFileSync('bash', [join(root, 'scripts/ci/install-node.sh'), '22'], { encoding: 'utf8' }).trim();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });

/**
 * `name [v1,v2]` lines of `conformance list --client`: the dated versions, or `[undefined]` (one
 * run without --spec-version) for a scenario listed only as `draft` or `extension`.
 */
function listed(entry) {
  const out = execFileSync(node22, [entry, 'list', '--client'], { cwd: root, encoding: 'utf8' });
  const scenarios = new Map();
  for (const match of out.matchAll(/^\s*-\s+(\S+)\s+\[([^\]]*)\]/gm)) {
    const dated = match[2]
      .split(',')
      .map((v) => v.trim())
      .filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v));
    scenarios.set(match[1], dated.length > 0 ? dated : [undefined]);
  }
  return scenarios;
}

const results = [];
const began = Date.now();
for (const runner of RUNNERS) {
  const offered = listed(runner.entry);
  for (const scenario of offered.keys()) {
    if (!SCENARIOS.includes(scenario) && !only.length) {
      results.push({ runner: runner.label, scenario, version: '-', ok: false, summary: 'not in run.mjs' });
      console.log(`FAIL ${runner.label} ${scenario}: listed by the runner but not run`);
    }
  }
  for (const scenario of SCENARIOS) {
    if (only.length && !only.includes(scenario)) continue;
    for (const version of offered.get(scenario) ?? []) {
      const started = Date.now();
      const run = spawnSync(
        node22,
        [
          runner.entry,
          'client',
          '--command',
          `${process.execPath} scripts/conformance/client.mjs`,
          '--scenario',
          scenario,
          ...(version ? ['--spec-version', version] : []),
        ],
        { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } },
      );
      const output = `${run.stdout}\n${run.stderr}`;
      const summary = output.match(/Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/);
      const ok =
        run.status === 0 &&
        /OVERALL: PASSED/.test(output) &&
        summary !== null &&
        summary[3] === '0' &&
        summary[4] === '0';
      results.push({ runner: runner.label, scenario, version, ok, summary: summary?.[0] ?? 'no summary' });
      console.log(
        `${ok ? 'ok  ' : 'FAIL'} ${runner.label.padEnd(15)} ${scenario.padEnd(44)} ${(version ?? 'unversioned').padEnd(11)}  ${summary?.[0] ?? 'no summary'} (${Date.now() - started} ms)`,
      );
      if (!ok)
        console.log(
          output
            .split('\n')
            .filter((line) => /FAILURE|WARNING|rror|OVERALL/.test(line))
            .join('\n'),
        );
    }
  }
}
for (const name of only) {
  if (!results.some((r) => r.scenario === name)) {
    results.push({ runner: '-', scenario: name, version: '-', ok: false, summary: 'not run' });
    console.log(
      `FAIL ${name}: ${SCENARIOS.includes(name) ? 'no runner lists it' : 'not in SCENARIOS (scripts/conformance/run.mjs)'}`,
    );
  }
}
const failed = results.filter((r) => !r.ok).length;
console.log(
  `conformance: ${results.length - failed} passed, ${failed} failed, ${Math.round((Date.now() - began) / 1000)} s`,
);
process.exitCode = failed === 0 && results.length > 0 ? 0 : 1;
