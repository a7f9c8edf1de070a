// One group's section of BENCHMARKS.md: its heading, the run it comes from, its chart and its table
// (scenario, unit, conduit-mcp, each official client, the raw floor, the two ratios, the spread).
import path from 'node:path';
import { formatNumber, formatRatio, markdownTable } from '../core/stats.js';
import type { GroupInfo } from './groups.js';
import {
  COLUMN_LABELS,
  type GroupFigures,
  numberOf,
  REPORT_COLUMNS,
  type ReportColumn,
  type SavedFigures,
  type SavedRow,
  type SavedRun,
} from './model.js';

/** The chart's path, from the repository root (BENCHMARKS.md's folder). */
export const chartPath = (group: string) => `bench/charts/${group}.svg`;

/** "2026-12-05 05:06 UTC" from an ISO date. */
export function runDate(date: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(date);
  return match ? `${match[1]} ${match[2]} UTC` : date;
}

function loadAtStart(run: SavedRun): string | undefined {
  return /load average:\s*([\d.]+)/.exec(run.environment.uptimeAtStart ?? '')?.[1];
}

/** One line: which run, how many samples, on what machine. */
export function sourceLine(run: SavedRun): string {
  const env = run.environment;
  const file = run.file ? ` (\`${path.basename(run.file)}\`)` : '';
  const how = run.settings.quick
    ? '`--quick`: one sample each, a check rather than a measurement'
    : `\`--runs ${run.settings.runs}\``;
  const load = loadAtStart(run);
  return [
    `Run of ${runDate(run.date)}${file}, ${how}`,
    `${env.cpu} x${env.nproc}, ${env.memoryGiB} GiB, ${env.platform}, Node ${env.node}`,
    `official 1.x ${env.sdk1}, 2.x ${env.sdk2}${load ? `, load ${load} at the start` : ''}.`,
  ].join('; ');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** A cell: the median ("> x" past a cap, "< x" for a capped official rate), "n/a" or "failed". */
export function cellText(row: SavedRow, column: ReportColumn): string {
  const figures = row.cells[column]?.figures;
  if (!figures) return 'n/a';
  if (figures.samples.length === 0) return figures.invalid?.length ? 'failed' : 'n/a';
  const median = formatNumber(numberOf(figures.median));
  const bad = figures.invalid?.length ? ` (${figures.invalid.length} bad)` : '';
  if (column === 'sdk1' && row.officialCapped) return `< ${median}${bad}`;
  return `${figures.capped ? '> ' : ''}${median}${bad}`;
}

/** ± half the range over the runs, in percent of the median. */
function halfRange(figures: SavedFigures | undefined): number {
  if (!figures || figures.samples.length < 2) return Number.NaN;
  return numberOf(figures.spreadPercent) / 2;
}

/** conduit-mcp's spread, and the widest of the row when another client's is wider. */
export function spreadText(row: SavedRow): string {
  const ours = halfRange(row.cells.conduit?.figures);
  const widest = Math.max(
    ...REPORT_COLUMNS.map((column) => halfRange(row.cells[column]?.figures)).filter(Number.isFinite),
  );
  if (!Number.isFinite(ours)) {
    return Number.isFinite(widest) ? `up to ±${Math.round(widest)}%` : 'one sample';
  }
  const text = `±${Math.round(ours)}%`;
  return Math.round(widest) > Math.round(ours) ? `${text}, up to ±${Math.round(widest)}%` : text;
}

/**
 * The columns a group's table shows: conduit-mcp and the raw floor always, an official client when
 * some row of the group has it (the official 1.x client has no modern era).
 */
export function columnsOf(rows: readonly SavedRow[]): ReportColumn[] {
  return REPORT_COLUMNS.filter(
    (column) =>
      column === 'conduit' || column === 'raw' || rows.some((row) => row.cells[column] !== undefined),
  );
}

export function tableOf(rows: readonly SavedRow[]): string[] {
  const columns = columnsOf(rows);
  const header = [
    'scenario',
    'unit',
    ...columns.map((c) => COLUMN_LABELS[c]),
    'ours / raw',
    'ours / best official',
    'spread',
  ];
  const body = rows.map((row) => [
    escapeCell(row.title),
    row.unit,
    ...columns.map((column) => cellText(row, column)),
    formatRatio(numberOf(row.vsRaw)),
    `${row.officialCapped ? '> ' : ''}${formatRatio(numberOf(row.vsOfficial))}`,
    spreadText(row),
  ]);
  return markdownTable(header, body);
}

export const groupBegin = (group: string) => `<!-- bench:group ${group} -->`;
export const groupEnd = (group: string) => `<!-- bench:group-end ${group} -->`;

function headingOf(group: GroupInfo): string[] {
  return [`### ${group.heading} (\`${group.id}\`)`, '', group.about, ''];
}

/** The section of a group with figures. */
export function groupSection(figures: GroupFigures): string[] {
  const { group, run, rows } = figures;
  const missed = rows.filter((row) => row.verdict?.met === false);
  return [
    groupBegin(group.id),
    ...headingOf(group),
    sourceLine(run),
    '',
    `![${group.heading}: conduit-mcp, the official clients and the raw floor, relative to the raw floor](${chartPath(group.id)})`,
    '',
    ...tableOf(rows),
    ...(missed.length
      ? ['', `Targets missed in this run: ${missed.map((row) => `${row.title} (${row.target})`).join('; ')}.`]
      : []),
    groupEnd(group.id),
  ];
}

/** The section of a group no saved run has measured. */
export function placeholderSection(group: GroupInfo): string[] {
  return [
    groupBegin(group.id),
    ...headingOf(group),
    `Not yet measured in this format: run \`npm run bench -- --only ${group.id}\`.`,
    groupEnd(group.id),
  ];
}
