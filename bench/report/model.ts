// A run as bench/run.ts saves it (bench/results/bench-<time>.json), read back loosely (NaN is saved
// as null; older runs have no group on their rows), and the choice of one run per group.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Column } from '../core/targets.js';
import { GROUPS, type GroupInfo, groupOfScenario } from './groups.js';

export interface SavedFigures {
  readonly samples: readonly number[];
  readonly invalid?: readonly string[];
  readonly median: number | null;
  readonly min?: number | null;
  readonly max?: number | null;
  readonly spreadPercent?: number | null;
  readonly capped?: boolean;
}

export interface SavedRow {
  readonly group?: string;
  readonly scenario: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly cells: Partial<Record<Column, { client: string; figures: SavedFigures }>>;
  readonly vsOfficial?: number | null;
  readonly vsRaw?: number | null;
  readonly target?: string;
  readonly verdict?: { text: string; met: boolean | null };
  readonly officialCapped?: boolean;
}

export interface SavedEnvironment {
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpu: string;
  readonly nproc: number;
  readonly memoryGiB: number;
  readonly sdk1: string;
  readonly sdk2: string;
  readonly uptimeAtStart?: string;
  readonly uptimeAtEnd?: string;
}

export interface SavedRun {
  readonly date: string;
  readonly durationS?: number;
  readonly environment: SavedEnvironment;
  readonly settings: { readonly quick: boolean; readonly runs: number; readonly groups: readonly string[] };
  readonly table: { readonly rows: readonly SavedRow[] };
  /** Where it was read from (not saved in the file). */
  readonly file?: string;
}

/** The columns of the report's tables and charts, in their order: ours, the officials, the floor. */
export const REPORT_COLUMNS = [
  'conduit',
  'sdk1',
  'sdk2',
  'sdk2auto',
  'raw',
] as const satisfies readonly Column[];
export type ReportColumn = (typeof REPORT_COLUMNS)[number];
export const COLUMN_LABELS: Record<ReportColumn, string> = {
  conduit: 'conduit-mcp',
  sdk1: 'official 1.x',
  sdk2: 'official 2.x',
  sdk2auto: 'official 2.x auto',
  raw: 'raw floor',
};
export const OFFICIAL_COLUMNS: readonly ReportColumn[] = ['sdk1', 'sdk2', 'sdk2auto'];

/** A saved number: NaN when missing (JSON has no NaN). */
export function numberOf(value: number | null | undefined): number {
  return typeof value === 'number' ? value : Number.NaN;
}

/** The median of a cell, NaN when the client has no valid sample (or no cell). */
export function medianOf(row: SavedRow, column: ReportColumn): number {
  const figures = row.cells[column]?.figures;
  return figures && figures.samples.length > 0 ? numberOf(figures.median) : Number.NaN;
}

export function groupOf(row: SavedRow): string {
  return row.group ?? groupOfScenario(row.scenario);
}

export function readRun(file: string): SavedRun {
  const run = JSON.parse(readFileSync(file, 'utf8')) as SavedRun;
  if (typeof run.date !== 'string' || !Array.isArray(run.table?.rows)) {
    throw new Error(`${file}: not a bench result (no date or table.rows)`);
  }
  return { ...run, file: path.resolve(file) };
}

/** One group's figures and the run they come from. */
export interface GroupFigures {
  readonly group: GroupInfo;
  readonly run: SavedRun;
  readonly rows: readonly SavedRow[];
}

/**
 * For each group, the run that shows it: a full run before a --quick one, then the newest. Groups
 * no run measured are absent.
 */
export function pickGroups(runs: readonly SavedRun[]): Map<string, GroupFigures> {
  const picked = new Map<string, GroupFigures>();
  const ordered = [...runs].sort(
    (a, b) => Number(a.settings.quick) - Number(b.settings.quick) || b.date.localeCompare(a.date),
  );
  for (const group of GROUPS) {
    for (const run of ordered) {
      const rows = run.table.rows.filter((row) => groupOf(row) === group.id);
      if (rows.length === 0) continue;
      picked.set(group.id, { group, run, rows });
      break;
    }
  }
  return picked;
}
