// `npm run conformance`: runs the official MCP conformance runner, pinned twice in
// devDependencies (@modelcontextprotocol/conformance 0.1.16 and, as the alias conformance-next,
// 0.2.0-alpha.12), against scripts/conformance/client.mjs: every non-auth client scenario at every
// wire version each runner offers for it. No expected-failures file: a FAILURE or a WARNING in
// any run fails the whole. The runner needs Node 22+; CONFORMANCE_NODE names one, else
// scripts/ci/install-node.sh 22 provides it.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNERS = [
  { label: '0.1.16', entry: 'node_modules/@modelcontextprotocol/conformance/dist/index.js' },
  { label: '0.2.0-alpha.12', entry: 'node_modules/conformance-next/dist/index.js' },
];
/** The non-auth client scenarios of issue #17; a runner runs those it lists. */
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
];
const only = process.argv.slice(2);

const node22 =
  process.env.CONFORMANCE_NODE ||
  execFileSync('bash', [join(root, 'scripts/ci/install-node.sh'), '22'], { encoding: 'utf8' }).trim();
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });

/** `name [v1,v2]` lines of `conformance list --client`, dated versions only. */
function listed(entry) {
  const out = execFileSync(node22, [entry, 'list', '--client'], { cwd: root, encoding: 'utf8' });
  const scenarios = new Map();
  for (const match of out.matchAll(/^\s*-\s+(\S+)\s+\[([^\]]*)\]/gm)) {
    scenarios.set(
      match[1],
      match[2].split(',').filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v.trim())),
    );
  }
  return scenarios;
}

const results = [];
for (const runner of RUNNERS) {
  const offered = listed(runner.entry);
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
          '--spec-version',
          version,
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
        `${ok ? 'ok  ' : 'FAIL'} ${runner.label.padEnd(15)} ${scenario.padEnd(36)} ${version}  ${summary?.[0] ?? 'no summary'} (${Date.now() - started} ms)`,
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
const failed = results.filter((r) => !r.ok).length;
console.log(`conformance: ${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && results.length > 0 ? 0 : 1;
