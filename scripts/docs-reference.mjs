// Builds the API reference (docs/reference/*.md) with TypeDoc from the TSDoc comments of every
// export of src/index.ts and src/llm/index.ts, under typedoc.json. TypeDoc fails on an export or
// member without a comment, on a broken {@link} and on a referenced type that is not exported.
// Usage: node scripts/docs-reference.mjs            (npm run docs): write docs/reference
//        node scripts/docs-reference.mjs --check    (npm run docs -- --check, CI): build into a
//          temporary directory and fail, naming the files, if docs/reference differs from it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const committed = path.join(root, 'docs', 'reference');
const typedoc = path.join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const unknown = process.argv.slice(2).filter((argument) => argument !== '--check');
if (unknown.length > 0) {
  console.error(`usage: node scripts/docs-reference.mjs [--check]; unknown: ${unknown.join(' ')}`);
  process.exit(2);
}
const check = process.argv.includes('--check');

function build(out) {
  if (!existsSync(typedoc)) {
    console.error('docs: TypeDoc is not installed (node_modules/typedoc); run `npm ci` first.');
    process.exit(2);
  }
  const run = spawnSync(process.execPath, [typedoc, '--options', 'typedoc.json', '--out', out], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(
      'docs: TypeDoc failed (see above): every export and member needs a /** ... */ comment, every {@link} a target.',
    );
    process.exit(run.status ?? 1);
  }
}

/** Every file under directory, as paths relative to it with forward slashes. */
function files(directory, prefix = '') {
  let entries;
  try {
    entries = readdirSync(path.join(directory, prefix), { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    return entry.isDirectory() ? files(directory, relative) : [relative];
  });
}

if (!check) {
  build(committed);
  console.log(`docs: wrote ${files(committed).length} files to docs/reference`);
  process.exit(0);
}

const fresh = mkdtempSync(path.join(tmpdir(), 'conduit-docs-'));
try {
  build(fresh);
  const want = new Set(files(fresh));
  const have = new Set(files(committed));
  const stale = [];
  for (const file of want) {
    if (!have.has(file)) stale.push(`missing: docs/reference/${file}`);
    else if (!readFileSync(path.join(fresh, file)).equals(readFileSync(path.join(committed, file)))) {
      stale.push(`out of date: docs/reference/${file}`);
    }
  }
  for (const file of have) if (!want.has(file)) stale.push(`not generated any more: docs/reference/${file}`);
  if (stale.length > 0) {
    console.error(`docs: docs/reference does not match the source's doc comments (${stale.length} files):`);
    for (const line of stale.sort()) console.error(`  ${line}`);
    console.error('Run `npm run docs` and commit docs/reference.');
    process.exit(1);
  }
  console.log(`docs: docs/reference is current (${want.size} files)`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
