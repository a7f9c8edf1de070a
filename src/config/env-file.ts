/**
 * Parses a dotenv file (VS Code's `envFile`): `KEY=value` lines, `export KEY=value`, `#` comments,
 * single quotes (literal), double quotes (with \n escapes), unquoted values with ` #` comments.
 * Returns the pairs, or the first line that is none of these.
 */
export function parseEnvFile(text: string): { pairs: Array<[string, string]> } | { badLine: number } {
  const pairs: Array<[string, string]> = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) return { badLine: index + 1 };
    const raw = match[2]!;
    let value: string;
    if (raw.startsWith("'")) {
      const end = raw.indexOf("'", 1);
      if (end === -1) return { badLine: index + 1 };
      value = raw.slice(1, end);
    } else if (raw.startsWith('"')) {
      const end = closingQuote(raw);
      if (end === -1) return { badLine: index + 1 };
      value = raw
        .slice(1, end)
        .replace(/\\([nrt"\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
    } else {
      value = raw.replace(/\s+#.*$/, '').trim();
    }
    pairs.push([match[1]!, value]);
  }
  return { pairs };
}

function closingQuote(raw: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (raw[i] === '"') return i;
  }
  return -1;
}
