/**
 * JSON with comments (`//`, `/* *\/`) and trailing commas, as VS Code, Cursor and Claude Code
 * accept in their MCP files. Comments and trailing commas become spaces, so the positions in a
 * parse error still point into the original text.
 */
export function stripJsonc(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  // Pass 1: comments. Pass 2: trailing commas, now that comments after them are blank.
  walkOutsideStrings(out, (i) => {
    if (out[i] !== '/') return i + 1;
    if (out[i + 1] === '/') {
      let stop = i;
      while (stop < out.length && out[stop] !== '\n') stop++;
      blank(i, stop);
      return stop;
    }
    if (out[i + 1] === '*') {
      let stop = i + 2;
      while (stop < out.length && !(out[stop] === '*' && out[stop + 1] === '/')) stop++;
      stop = Math.min(out.length, stop + 2);
      blank(i, stop);
      return stop;
    }
    return i + 1;
  });
  walkOutsideStrings(out, (i) => {
    if (out[i] !== ',') return i + 1;
    let j = i + 1;
    while (j < out.length && /\s/.test(out[j]!)) j++;
    if (out[j] === '}' || out[j] === ']') out[i] = ' ';
    return i + 1;
  });
  return out.join('');
}

/** Calls `visit` at each index outside a string literal; `visit` returns the next index. */
function walkOutsideStrings(chars: string[], visit: (i: number) => number): void {
  let i = 0;
  while (i < chars.length) {
    if (chars[i] === '"') {
      i++;
      while (i < chars.length && chars[i] !== '"') i += chars[i] === '\\' ? 2 : 1;
      i++;
    } else {
      i = visit(i);
    }
  }
}

/** Parses JSONC; a syntax error says the line and column. */
export function parseJsonc(text: string): { value: unknown } | { error: string } {
  const stripped = stripJsonc(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  try {
    return { value: JSON.parse(stripped) };
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    if (!position) return { error: message };
    const before = stripped.slice(0, Number(position[1])).split('\n');
    const column = before[before.length - 1]!.length + 1;
    return {
      error: `${message.replace(/ in JSON at position \d+.*$/s, '')} at line ${before.length}, column ${column}`,
    };
  }
}
