// Statistics the bench runner and its child processes share: summaries of samples, a full GC
// between samples, and number formatting.
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

/** The samples of one client in one scenario, and their summary. */
export interface Figures {
  /** Every valid measured sample, in the order taken. */
  readonly samples: number[];
  /** Why each invalid sample was thrown away (a wrong answer, an error). */
  readonly invalid: string[];
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** (max - min) / median, in percent. */
  readonly spreadPercent: number;
  /** The samples hit a cap: the true value is beyond the median (e.g. "> 10 s"). */
  readonly capped?: boolean;
  /** Extra values worth keeping (e.g. close() resolution times). */
  readonly extra?: Record<string, number | string>;
  /** Set when `median` holds the mean instead (a bimodal measure, where the median flips). */
  readonly statistic?: 'mean';
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summarise(
  samples: number[],
  invalid: string[] = [],
  more: { capped?: boolean; extra?: Record<string, number | string> } = {},
): Figures {
  const m = median(samples);
  const min = samples.length ? Math.min(...samples) : Number.NaN;
  const max = samples.length ? Math.max(...samples) : Number.NaN;
  return {
    samples: samples.map((value) => Math.round(value * 1000) / 1000),
    invalid,
    median: m,
    min,
    max,
    spreadPercent: samples.length > 1 ? ((max - min) / m) * 100 : 0,
    ...(more.capped ? { capped: true } : {}),
    ...(more.extra ? { extra: more.extra } : {}),
  };
}

/** A full GC, so one sample's garbage is not collected on the next one's clock (undefined if unavailable). */
export const collectGarbage: (() => void) | undefined = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();

/** GCs and short pauses until the heap stops shrinking, so a baseline does not fall under a measurement. */
export async function settleHeap(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    collectGarbage?.();
    await sleep(200);
  }
}

/** V8's used heap plus external memory, in KiB (steadier than RSS). */
export function heapKiB(): number {
  const { used_heap_size, external_memory } = v8.getHeapStatistics();
  return (used_heap_size + external_memory) / 1024;
}

/** 3 significant digits at most, thousands separated: 51,877 / 80.3 / 9.87 / 0.412. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value >= 10) return `${value.toFixed(0)}x`;
  return `${value >= 0.1 ? value.toFixed(2) : value.toPrecision(2)}x`;
}

/** A markdown table with the first column left-aligned and the others right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    `| ${r.map((v, i) => (i === 0 ? (v ?? '').padEnd(widths[i]!) : (v ?? '').padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}
