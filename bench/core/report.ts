// The report: one markdown table (absolute figures, ratios, targets, verdicts), the notes that go
// with it (CPU per call, server load, close details, invalid samples, warnings), and the JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { root } from '../clients/index.js';
import type { Environment } from './environment.js';
import type { ScenarioResult } from './runner.js';
import { type Figures, formatNumber, formatRatio, markdownTable } from './stats.js';
import { COLUMN_HEADERS, COLUMNS, type Row } from './targets.js';

function cellText(figures: Figures, upperBound: boolean): string {
  if (figures.samples.length === 0) return figures.invalid.length ? 'failed' : 'n/a';
  // A capped official rate is an upper bound; a capped time a lower one.
  if (upperBound) return `< ${formatNumber(figures.median)}`;
  const value = `${figures.capped ? '> ' : ''}${formatNumber(figures.median)}`;
  const spread = figures.samples.length > 1 ? ` ±${Math.round(figures.spreadPercent / 2)}%` : '';
  const bad = figures.invalid.length ? ` (${figures.invalid.length} bad)` : '';
  return `${value}${spread}${bad}`;
}

export function tableLines(rows: readonly Row[]): string[] {
  const header = [
    'scenario',
    'unit',
    ...COLUMNS.map((c) => COLUMN_HEADERS[c]),
    'ours / best official',
    'ours / raw',
    'target',
    'verdict',
  ];
  const body = rows.map((row) => [
    row.title,
    row.unit,
    ...COLUMNS.map((column) => {
      const cell = row.cells[column];
      return cell ? cellText(cell.figures, column === 'sdk1' && row.officialCapped === true) : '';
    }),
    (row.officialCapped ? '> ' : '') + formatRatio(row.vsOfficial),
    formatRatio(row.vsRaw),
    row.target,
    row.verdict.text,
  ]);
  return markdownTable(header, body);
}

/** The notes printed under the table: what each cell is, and what the figures alone do not say. */
export function notesFor(results: readonly ScenarioResult[], intro: readonly string[]): string[] {
  const cpuNotes = results.flatMap((s) => {
    const cpu = Object.entries(s.figures)
      .map(([id, f]) => {
        const value = f?.extra?.clientCpuUsPerCall ?? f?.extra?.clientCpuUsPerMiB;
        return value === undefined ? undefined : `${id} ${value}`;
      })
      .filter((text) => text !== undefined);
    if (cpu.length === 0) return [];
    const main = Object.entries(s.figures)
      .map(([id, f]) => {
        const value = f?.extra?.clientCpuUsPerCallMainThread ?? f?.extra?.clientCpuUsPerMiBMainThread;
        return value === undefined ? undefined : `${id} ${value}`;
      })
      .filter((text) => text !== undefined);
    const mainText = main.length === 0 ? '' : ` (of which the main thread: ${main.join(', ')})`;
    const per = s.unit === 'calls/s' ? 'call' : 'MiB';
    const busy = Object.entries(s.figures)
      .map(([id, f]) => `${id} ${f?.extra?.serverBusyPercent ?? 'n/a'}%`)
      .join(', ');
    return [
      `${s.id}: this process's CPU time per ${per}, µs (median): ${cpu.join(', ')}${mainText}; server busy (CPU / wall): ${busy}`,
    ];
  });
  const closeNotes = results
    .filter((s) => s.id === 'close')
    .map(
      (s) =>
        `close: fastest / mean / close() resolved (median), ms: ${Object.entries(s.figures)
          .map(
            ([id, f]) =>
              `${id} ${f?.extra?.fastestMs} / ${f?.extra?.meanMs} / ${f?.extra?.closeResolvedMedianMs}`,
          )
          .join(', ')} (a process exit takes about 4 or about 8 ms here, whoever closes it)`,
    );
  const invalid = results.flatMap((s) =>
    Object.entries(s.figures).flatMap(([id, f]) =>
      (f?.invalid ?? []).map((why) => `${s.id} / ${id}: invalid sample: ${why}`),
    ),
  );
  return [
    ...intro,
    ...cpuNotes,
    ...closeNotes,
    ...results.flatMap((s) => s.notes.map((note) => `${s.id}: ${note}`)),
    ...invalid,
  ];
}

export function printReport(
  rows: readonly Row[],
  notes: readonly string[],
  environment: Environment,
  durationS: number,
): void {
  const missed = rows.filter((row) => row.verdict.met === false);
  const output = [
    '',
    `conduit-mcp bench, ${new Date().toISOString()}: ${environment.cpu} x${environment.nproc}, Node ${environment.node}, ${durationS.toFixed(0)} s`,
    `load at start: ${environment.uptimeAtStart}`,
    `load at end:   ${environment.uptimeAtEnd}`,
    '',
    ...tableLines(rows),
    '',
    ...notes.map((note) => `note: ${note}`),
    ...(missed.length
      ? [`MISSED: ${missed.map((row) => row.title).join('; ')}`]
      : ['every target with a verdict was met']),
  ];
  console.log(output.join('\n'));
}

/** Writes bench/results/bench-<time>.json; returns its path. */
export function writeResults(json: Record<string, unknown>): string {
  const date = new Date().toISOString();
  const directory = path.join(root, 'bench/results');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `bench-${date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ date, ...json }, null, 2)}\n`);
  return file;
}
