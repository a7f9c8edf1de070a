// Writes the report from saved runs: bench/charts/<group>.svg for each group they measured, and
// those groups' tables in BENCHMARKS.md (the other groups keep theirs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { groupChart } from './chart.js';
import { spliceReport } from './document.js';
import { pickGroups, type SavedRun } from './model.js';
import { chartPath } from './table.js';

export interface WrittenReport {
  /** The groups whose table and chart were written, each with the date of its run. */
  readonly groups: { group: string; date: string }[];
  readonly document: string;
}

/** `root`: the repository (BENCHMARKS.md and bench/charts/ are under it). */
export function writeReport(runs: readonly SavedRun[], root: string): WrittenReport {
  const picked = pickGroups(runs);
  const document = path.join(root, 'BENCHMARKS.md');
  const markdown = readFileSync(document, 'utf8');
  const updated = spliceReport(markdown, picked);
  mkdirSync(path.join(root, 'bench/charts'), { recursive: true });
  for (const [group, figures] of picked) {
    writeFileSync(path.join(root, chartPath(group)), groupChart(figures));
  }
  writeFileSync(document, updated);
  return {
    groups: [...picked].map(([group, figures]) => ({ group, date: figures.run.date })),
    document,
  };
}
