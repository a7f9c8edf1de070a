// The framing benchmark's own tables: throughput per case, and where the time goes.
import { markdownTable } from '../core/stats.js';
import type { FramingCaseResult, ReaderFigures } from './types.js';

function formatMBps(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function formatMs(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function cell(f: ReaderFigures): string {
  if (f.timedOut) return `< ${formatMBps(f.medianMBps)} (stopped at ${formatMs(f.medianMs / 1000)} s)`;
  return `${formatMBps(f.medianMBps)} (±${(f.spreadPercent / 2).toFixed(0)}%, n=${f.runs})`;
}

export function throughputTable(cases: FramingCaseResult[]): string[] {
  return markdownTable(
    ['case', 'MB', 'ours MB/s', 'official MB/s', 'ours/official'],
    cases.map((c) => [
      c.name,
      (c.bytes / 1e6).toFixed(1),
      cell(c.ours),
      cell(c.official),
      `${c.official.timedOut ? '> ' : ''}${c.ratio.toFixed(c.ratio >= 10 ? 0 : 2)}x`,
    ]),
  );
}

export function breakdownTable(cases: FramingCaseResult[]): string[] {
  return markdownTable(
    [
      'case',
      'ours total',
      'ours parse',
      'ours framing',
      'official total',
      'official parse',
      'official framing',
      'framing ratio',
    ],
    cases.map((c) => [
      c.name,
      formatMs(c.ours.fastestMs),
      formatMs(c.parseOnly.ours.fastestMs),
      formatMs(c.framingMs.ours),
      formatMs(c.official.fastestMs),
      formatMs(c.parseOnly.official.fastestMs),
      formatMs(c.framingMs.official),
      c.framingRatio === null ? 'n/a' : `${c.framingRatio.toFixed(c.framingRatio >= 10 ? 0 : 1)}x`,
    ]),
  );
}
