// Re-renders BENCHMARKS.md's figures and bench/charts/ from saved results, running nothing:
//
//   node --import tsx bench/report/render.ts <result.json...>
//
// Each group comes from the newest full (not --quick) run among the files that measured it; a group
// none of them measured keeps what BENCHMARKS.md has.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRun } from './model.js';
import { runDate } from './table.js';
import { writeReport } from './write.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const files = process.argv.slice(2);
if (files.length === 0 || files.includes('--help') || files.includes('-h')) {
  process.stderr.write('usage: node --import tsx bench/report/render.ts <bench/results/bench-*.json...>\n');
  process.exit(files.length === 0 ? 2 : 0);
}
try {
  const written = writeReport(files.map(readRun), root);
  for (const { group, date } of written.groups) {
    process.stdout.write(`${group}: run of ${runDate(date)} -> bench/charts/${group}.svg\n`);
  }
  process.stdout.write(`${path.relative(process.cwd(), written.document)} updated\n`);
} catch (error) {
  process.stderr.write(`render: ${(error as Error).message}\n`);
  process.exit(1);
}
