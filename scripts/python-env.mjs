// Makes the git-ignored virtual environment .venv that the Python interop tests run their servers
// in, from test/fixtures/python/requirements.txt. Idempotent: a venv made from the same
// requirements is kept. Fails (exit 1, with pip's own output) when Python or a package is missing:
// the tests that need Python are never skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const venv = path.join(root, '.venv');
const requirementsFile = path.join(root, 'test/fixtures/python/requirements.txt');
const stamp = path.join(venv, '.conduit-requirements');
const python =
  process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');

const requirements = readFileSync(requirementsFile, 'utf8');
if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === requirements) process.exit(0);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    const why = result.error ? result.error.message : `exit status ${result.status}`;
    console.error(
      `python-env: ${command} ${args.join(' ')} failed (${why}); the Python interop tests need it`,
    );
    process.exit(1);
  }
}

rmSync(venv, { recursive: true, force: true });
run(process.env.PYTHON ?? 'python3', ['-m', 'venv', venv]);
// --retries 0: where the default index is out of reach, fail over to the configured extra indexes at
// once instead of retrying for minutes.
run(python, [
  '-m',
  'pip',
  'install',
  '--quiet',
  '--retries',
  '0',
  '--disable-pip-version-check',
  '-r',
  requirementsFile,
]);
writeFileSync(stamp, requirements);
console.error(`python-env: made ${path.relative(root, venv)} from ${path.relative(root, requirementsFile)}`);
