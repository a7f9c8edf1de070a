// One group's chart as plain SVG: per scenario, a horizontal bar per client (conduit-mcp, the
// official clients, the raw floor), normalised to the raw floor = 1.0 so that rates and times share
// one scale, longer always better (a time or a size is inverted: raw / client). A white background,
// so it reads the same on GitHub's light and dark themes.
import { formatNumber, formatRatio } from '../core/stats.js';
import { COLUMN_LABELS, type GroupFigures, medianOf, type ReportColumn, type SavedRow } from './model.js';
import { columnsOf, runDate } from './table.js';

export const COLORS: Record<ReportColumn, string> = {
  conduit: '#0969da',
  sdk1: '#bf8700',
  sdk2: '#8250df',
  sdk2auto: '#bf3989',
  raw: '#6e7781',
};

const WIDTH = 860;
const MARGIN = 16;
const LABEL_WIDTH = 130;
const VALUE_WIDTH = 170;
const BAR_AREA = WIDTH - 2 * MARGIN - LABEL_WIDTH - VALUE_WIDTH;
const BAR_STEP = 18;
const BAR_HEIGHT = 12;
const TEXT = '#1f2328';
const MUTED = '#59636e';
const FONT = 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface Bar {
  readonly column: ReportColumn;
  /** The client's figure relative to the reference, longer better; NaN: no figure. */
  readonly ratio: number;
  readonly value: number;
  /** The true ratio is at most this (a capped time, or a capped official rate). */
  readonly upperBound: boolean;
}

/**
 * A row's bars (one per column the row has a cell in), and whether the raw floor is the reference
 * (else the best client is).
 */
export function barsOf(
  row: SavedRow,
  groupColumns: readonly ReportColumn[],
): { bars: Bar[]; rawBased: boolean } {
  const columns = groupColumns.filter((column) => row.cells[column] !== undefined);
  const raw = medianOf(row, 'raw');
  const values = columns.map((column) => medianOf(row, column)).filter((v) => Number.isFinite(v) && v > 0);
  const rawBased = Number.isFinite(raw) && raw > 0;
  const best = row.better === 'higher' ? Math.max(...values) : Math.min(...values);
  const reference = rawBased ? raw : best;
  const bars = columns.map((column) => {
    const value = medianOf(row, column);
    const usable = Number.isFinite(value) && value > 0 && Number.isFinite(reference);
    const ratio = !usable ? Number.NaN : row.better === 'higher' ? value / reference : reference / value;
    const figures = row.cells[column]?.figures;
    const upperBound = figures?.capped === true || (column === 'sdk1' && row.officialCapped === true);
    return { column, ratio, value, upperBound };
  });
  return { bars, rawBased };
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${round(x)}" y="${round(y)}" ${attributes}>${escapeXml(content)}</text>`;
}

const round = (value: number) => Math.round(value * 10) / 10;

function shorten(title: string, max = 105): string {
  return title.length <= max ? title : `${title.slice(0, max - 1)}…`;
}

export function groupChart(figures: GroupFigures): string {
  const { group, run, rows } = figures;
  const columns = columnsOf(rows);
  const rowBars = rows.map((row) => ({ row, ...barsOf(row, columns) }));
  const ratios = rowBars.flatMap((r) => r.bars.map((b) => b.ratio)).filter(Number.isFinite);
  const scaleMax = Math.max(1, ...ratios) * 1.02;
  const x0 = MARGIN + LABEL_WIDTH;
  const xOf = (ratio: number) => x0 + (Math.min(ratio, scaleMax) / scaleMax) * BAR_AREA;

  const body: string[] = [];
  body.push(
    text(MARGIN, 26, `${group.heading} (${group.id})`, `font-size="16" font-weight="600" fill="${TEXT}"`),
  );
  body.push(
    text(
      MARGIN,
      46,
      'Relative to the raw floor (raw = 1.0), longer is better: rates as client / raw, times and memory as raw / client.',
      `font-size="12" fill="${MUTED}"`,
    ),
  );
  body.push(
    text(
      MARGIN,
      62,
      `Median of each client; run of ${runDate(run.date)}${run.settings.quick ? ' (--quick: one sample each)' : ''}.`,
      `font-size="12" fill="${MUTED}"`,
    ),
  );
  let legendX = MARGIN;
  for (const column of columns) {
    body.push(`<rect x="${legendX}" y="72" width="12" height="12" fill="${COLORS[column]}"/>`);
    body.push(text(legendX + 16, 82, COLUMN_LABELS[column], `font-size="12" fill="${TEXT}"`));
    legendX += 16 + COLUMN_LABELS[column].length * 7 + 18;
  }

  let y = 108;
  for (const { row, bars, rawBased } of rowBars) {
    const reference = rawBased ? '' : ' (no raw floor: the best client = 1.0)';
    body.push(
      text(
        MARGIN,
        y,
        `${shorten(row.title)}, ${row.unit}${reference}`,
        `font-size="12" font-weight="600" fill="${TEXT}"`,
      ),
    );
    const top = y + 6;
    const bottom = top + bars.length * BAR_STEP;
    for (const [i, bar] of bars.entries()) {
      const barY = top + i * BAR_STEP;
      body.push(text(MARGIN, barY + 10, COLUMN_LABELS[bar.column], `font-size="11" fill="${TEXT}"`));
      if (!Number.isFinite(bar.ratio)) {
        body.push(text(x0 + 4, barY + 10, 'n/a', `font-size="11" fill="${MUTED}" class="na"`));
        continue;
      }
      const width = Math.max(1, xOf(bar.ratio) - x0);
      body.push(
        `<rect class="bar" data-column="${bar.column}" x="${x0}" y="${barY}" width="${round(width)}" height="${BAR_HEIGHT}" fill="${COLORS[bar.column]}"/>`,
      );
      const label = `${bar.upperBound ? '< ' : ''}${formatRatio(bar.ratio)} (${bar.upperBound && row.better === 'lower' ? '> ' : ''}${formatNumber(bar.value)} ${row.unit})`;
      body.push(text(x0 + width + 4, barY + 10, label, `font-size="11" fill="${TEXT}"`));
    }
    const one = round(xOf(1));
    body.push(
      `<line x1="${one}" y1="${top - 2}" x2="${one}" y2="${bottom}" stroke="${TEXT}" stroke-width="1" stroke-dasharray="3,3"/>`,
    );
    y = bottom + 22;
  }
  const height = y - 6;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<title>${escapeXml(`${group.heading}: conduit-mcp, the official clients and the raw floor`)}</title>`,
    `<rect x="0.5" y="0.5" width="${WIDTH - 1}" height="${height - 1}" rx="6" fill="#ffffff" stroke="#d0d7de"/>`,
    `<g font-family="${FONT}">`,
    ...body,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
