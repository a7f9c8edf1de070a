// The API reference fails to build on an undocumented export: TypeDoc, run with the project's
// typedoc.json (its validation, treatWarningsAsErrors and requiredToBeDocumented) against
// test/fixtures/docs-reference/entry.ts, fails naming the export without a comment, and passes
// once that export has one. `npm run docs` and its CI check run the same settings on src/.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..');
const typedoc = path.join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const fixture = path.join(root, 'test', 'fixtures', 'docs-reference', 'entry.ts');
const settings = JSON.parse(readFileSync(path.join(root, 'typedoc.json'), 'utf8'));

/** Writes entry.ts (source), a tsconfig and the project's TypeDoc settings on it into directory. */
function prepare(directory: string, source: string): string {
  mkdirSync(directory);
  writeFileSync(path.join(directory, 'entry.ts'), source);
  const tsconfig = path.join(directory, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, skipLibCheck: true, types: [] },
      files: ['entry.ts'],
    }),
  );
  // src/'s own list of types it may reference without exporting does not apply to the fixture.
  const { intentionallyNotExported: _, ...options } = settings;
  const file = path.join(directory, 'typedoc.json');
  writeFileSync(
    file,
    JSON.stringify({ ...options, entryPoints: [path.join(directory, 'entry.ts')], tsconfig, out: directory }),
  );
  return file;
}

/** Runs TypeDoc (writing nothing) with an options file; resolves its exit code and plain log. */
function runTypedoc(optionsFile: string): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [typedoc, '--options', optionsFile, '--emit', 'none'], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, log: log.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

describe('the API reference build', () => {
  let directory = '';
  // The fixture as it is, and with the missing comment added; both run at once (each is a
  // TypeDoc start, a few seconds).
  let runs: Promise<[{ code: number | null; log: string }, { code: number | null; log: string }]>;

  before(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'conduit-reference-'));
    const source = readFileSync(fixture, 'utf8');
    const documented = source.replace(
      'export function undocumented',
      '/** Doubles a number. */\nexport function undocumented',
    );
    assert.notEqual(documented, source, 'the fixture still has export function undocumented');
    runs = Promise.all([
      runTypedoc(prepare(path.join(directory, 'as-is'), source)),
      runTypedoc(prepare(path.join(directory, 'documented'), documented)),
    ]);
  });
  after(async () => {
    await runs.catch(() => {});
    rmSync(directory, { recursive: true, force: true });
  });

  test('the settings are the ones that make an undocumented export an error', () => {
    assert.equal(settings.treatWarningsAsErrors, true);
    assert.deepEqual(settings.validation, { notExported: true, invalidLink: true, notDocumented: true });
    for (const kind of ['Function', 'Class', 'Interface', 'Property', 'Method', 'TypeAlias', 'Variable']) {
      assert.ok(settings.requiredToBeDocumented.includes(kind), kind);
    }
  });

  test('fails naming the export without a comment, and only that one', async () => {
    const [{ code, log }] = await runs;
    assert.notEqual(code, 0, log);
    assert.match(log, /\bundocumented \(CallSignature\).* does not have any documentation/, log);
    assert.doesNotMatch(log, /\] documented \(/, log);
  });

  test('passes once that export has a comment', async () => {
    const [, { code, log }] = await runs;
    assert.equal(code, 0, log);
    assert.doesNotMatch(log, /does not have any documentation/, log);
  });
});
