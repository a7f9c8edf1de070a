// Rows of the table and their targets. A scenario records its result with the rows to show: which
// client goes in which column, and the target check that gives the verdict.
import type { ClientId } from '../clients/index.js';
import { SDK1_VERSION, SDK2_VERSION } from '../clients/index.js';
import type { ScenarioResult } from './runner.js';
import type { Figures } from './stats.js';

export const COLUMNS = ['raw', 'conduit', 'sdk1', 'sdk2', 'sdk2auto'] as const;
export type Column = (typeof COLUMNS)[number];
export const COLUMN_HEADERS: Record<Column, string> = {
  raw: 'raw pipe',
  conduit: 'conduit-mcp',
  sdk1: `sdk ${SDK1_VERSION}`,
  sdk2: `client ${SDK2_VERSION}`,
  sdk2auto: `client ${SDK2_VERSION} auto`,
};
export const OFFICIAL: readonly Column[] = ['sdk1', 'sdk2', 'sdk2auto'];

/** The usual columns: every client in the legacy era, and those that speak the modern one. */
export const LEGACY_COLUMNS = { raw: 'raw', conduit: 'conduit', sdk1: 'sdk1', sdk2: 'sdk2' } as const;
export const MODERN_COLUMNS = { raw: 'raw', conduit: 'conduit', sdk2auto: 'sdk2-auto' } as const;

export interface Verdict {
  readonly text: string;
  readonly met: boolean | null;
}

export interface Row {
  readonly scenario: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'higher' | 'lower';
  readonly cells: Partial<Record<Column, { client: string; figures: Figures }>>;
  /** conduit-mcp / the best official client (time or rate, as the unit says). */
  readonly vsOfficial: number;
  /** conduit-mcp / the raw pipe. */
  readonly vsRaw: number;
  readonly target: string;
  readonly verdict: Verdict;
  /** The official figure is a cap: its rate is an upper bound ("< x"), the ratio a lower one. */
  readonly officialCapped?: boolean;
}

/** Gives a row its target text and verdict (null: reported, no target). */
export type TargetCheck = (
  row: Omit<Row, 'target' | 'verdict'>,
  results: readonly ScenarioResult[],
) => { target: string; met: boolean | null };

/** A row to build from a recorded result. */
export interface RowSpec {
  readonly columns: Partial<Record<Column, ClientId>>;
  readonly check: TargetCheck;
  /** Another title than the result's. */
  readonly title?: string;
  /** Leave "ours / raw" empty (a ratio that means nothing, e.g. the raw pipe does not probe). */
  readonly noRawRatio?: boolean;
}

export const atLeast =
  (official: number | null, raw: number | null): TargetCheck =>
  (row) => {
    const parts: string[] = [];
    let met = true;
    if (official !== null) {
      parts.push(`>= ${official}x best official`);
      met &&= row.vsOfficial >= official;
    }
    if (raw !== null) {
      parts.push(`>= ${raw}x raw`);
      met &&= row.vsRaw >= raw;
    }
    return { target: parts.join(', '), met };
  };

export const atMostRaw =
  (factor: number): TargetCheck =>
  (row) => ({ target: `<= ${factor}x raw`, met: row.vsRaw <= factor });

export const info: TargetCheck = () => ({ target: 'report', met: null });

export function verdictOf(met: boolean | null): Verdict {
  return { text: met === null ? 'info' : met ? 'met' : 'MISSED', met };
}

export function buildRow(result: ScenarioResult, spec: RowSpec, results: readonly ScenarioResult[]): Row {
  const cells: Row['cells'] = {};
  for (const column of COLUMNS) {
    const client = spec.columns[column];
    const figures = client && result.figures[client];
    if (client && figures) cells[column] = { client, figures };
  }
  const value = (column: Column) => {
    const cell = cells[column];
    return cell && cell.figures.samples.length > 0 ? cell.figures.median : Number.NaN;
  };
  const officials = OFFICIAL.map(value).filter((v) => Number.isFinite(v));
  const best =
    officials.length === 0
      ? Number.NaN
      : result.better === 'higher'
        ? Math.max(...officials)
        : Math.min(...officials);
  const partial = {
    scenario: result.id,
    title: spec.title ?? result.title,
    unit: result.unit,
    better: result.better,
    cells,
    vsOfficial: value('conduit') / best,
    vsRaw: spec.noRawRatio ? Number.NaN : value('conduit') / value('raw'),
  };
  const { target, met } = spec.check(partial, results);
  return { ...partial, target, verdict: verdictOf(met) };
}

/**
 * ClientPool (issues 21 and 23): 100 servers all ready within 1.05x the raw floor (the same processes
 * spawned with no library), and the client heap per server at most the best official client's
 * (@modelcontextprotocol/client 2.x: 15.7 KiB in the run of 2026-12-01).
 */
export const POOL_TARGETS = { readyVsRaw: 1.05, heapKiBPerServer: 15.7 } as const;

/**
 * The HTTP scenarios' targets (issue 17), by workload id: at least 1.5x the best official
 * Streamable HTTP client sequential and 2x at 256 in flight, at least 0.9x the raw floor everywhere
 * (connect: at most 1/0.9 of the raw floor's time), and a flat heap over the long run.
 */
export const HTTP_TARGETS: Record<string, TargetCheck> = {
  sequential: atLeast(1.5, 0.9),
  'in-flight': atLeast(2, 0.9),
  'bytes-1m-json': atLeast(null, 0.9),
  'bytes-1m-sse': atLeast(null, 0.9),
  connect: atMostRaw(1.11),
};

/** Heap (V8 heap + external) growth over a long run of calls, MiB: at most `limitMiB`. */
export const heapFlat =
  (limitMiB: number): TargetCheck =>
  (row) => ({
    target: `<= ${limitMiB} MiB growth`,
    met: (row.cells.conduit?.figures.median ?? Number.NaN) <= limitMiB,
  });

/** The heap target over 100,000 calls (--quick: fewer calls, the same bound). */
export const HTTP_HEAP_LIMIT_MIB = 1;
