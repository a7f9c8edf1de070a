/** How a table meets the terminal: its width (undefined: not a terminal, nothing is fitted). */
export interface TableLayout {
  /** Columns of the terminal, when stdout is one. */
  width?: number | undefined;
  /** The columns that may wrap onto more lines to fit `width`; the others are never cut. */
  wrap?: readonly number[];
}

const INDENT = 2;
const GAP = 2;
/** A wrapped column is not made narrower than this (or its header). */
const MIN_WRAPPED = 12;

/** The column widths: each cell's own, the wrappable ones narrowed (widest first) to fit `width`. */
function fitWidths(natural: number[], headers: string[], layout: TableLayout): number[] {
  const widths = [...natural];
  if (layout.width === undefined) return widths;
  const total = () => INDENT + widths.reduce((sum, width) => sum + width, 0) + GAP * (widths.length - 1);
  let excess = total() - layout.width;
  const floor = (column: number) => Math.max(MIN_WRAPPED, headers[column]!.length);
  while (excess > 0) {
    let widest = -1;
    for (const column of layout.wrap ?? []) {
      if (widths[column]! > floor(column) && (widest === -1 || widths[column]! > widths[widest]!))
        widest = column;
    }
    if (widest === -1) break;
    widths[widest]!--;
    excess--;
  }
  return widths;
}

/** A cell's lines at most `width` long: broken at spaces, a word longer than a line cut into pieces. */
function wrapText(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(' ')) {
    while (word.length > width) {
      if (line) lines.push(line);
      line = '';
      lines.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * A plain text table: a header row, then rows, columns padded to their widest cell. On a terminal
 * (`layout.width`), the wrappable columns wrap onto more lines so that the row fits; a column that
 * may not wrap (a name to type back) is always whole.
 */
export function table(headers: string[], rows: string[][], layout: TableLayout = {}): string {
  if (rows.length === 0) return '  (none)';
  const natural = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const widths = fitWidths(natural, headers, layout);
  const format = (cells: string[]) =>
    `${' '.repeat(INDENT)}${cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join(' '.repeat(GAP))}`.trimEnd();
  const lines = [format(headers)];
  for (const row of rows) {
    const wrapped = headers.map((_, column) => wrapText(row[column] ?? '', widths[column]!));
    const height = Math.max(...wrapped.map((cell) => cell.length));
    for (let index = 0; index < height; index++) lines.push(format(wrapped.map((cell) => cell[index] ?? '')));
  }
  return lines.join('\n');
}
