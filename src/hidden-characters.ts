/**
 * Characters in a tool's text that a person reviewing it cannot see but a model reads: the
 * terminal sanitiser's set (C0 controls but newline and tab, DEL, C1, the Arabic letter mark,
 * zero-width characters and joiners, bidirectional embeddings, overrides and isolates, the word
 * joiner and invisible operators, the byte-order mark) and the Unicode tag characters (U+E0000 to
 * U+E007F), which can spell a whole hidden instruction.
 */

/** What kind of hidden character was found. */
export type HiddenCharacterKind = 'control' | 'zero-width' | 'bidi' | 'tag';

/** One run of hidden characters of one kind. */
export interface HiddenCharacters {
  /** Which kind: control, zero-width, bidi or tag characters. */
  readonly kind: HiddenCharacterKind;
  /** Index (UTF-16) of the run's first character in the text. */
  readonly index: number;
  /** The characters as `U+XXXX` code points. */
  readonly codePoints: readonly string[];
  /** Tag characters only: the ASCII text they spell. */
  readonly spells?: string;
}

const CONTROL = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f';
const ZERO_WIDTH = '\\u200b-\\u200d\\u2060-\\u2064\\ufeff';
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u206f';

/**
 * The characters a terminal must not print as they are and a reviewer cannot see, as the body of
 * a RegExp character class (controls but newline and tab, zero-width, bidirectional): the terminal
 * sanitiser of the command and findHiddenCharacters share it.
 */
export const INVISIBLE_CHARACTERS = `${CONTROL}${ZERO_WIDTH}${BIDI}`;

const HIDDEN = new RegExp(`[${CONTROL}]+|[${ZERO_WIDTH}]+|[${BIDI}]+|[\\u{e0000}-\\u{e007f}]+`, 'gu');

function kindOf(codePoint: number): HiddenCharacterKind {
  if (codePoint >= 0xe0000) return 'tag';
  if (codePoint <= 0x9f) return 'control';
  if (codePoint === 0x061c || codePoint === 0x200e || codePoint === 0x200f) return 'bidi';
  if ((codePoint >= 0x202a && codePoint <= 0x202e) || (codePoint >= 0x2066 && codePoint <= 0x206f))
    return 'bidi';
  return 'zero-width';
}

/** Every run of hidden characters in `text`, in order; empty when it has none. */
export function findHiddenCharacters(text: string): HiddenCharacters[] {
  const found: HiddenCharacters[] = [];
  for (const match of text.matchAll(HIDDEN)) {
    const points = [...match[0]].map((character) => character.codePointAt(0)!);
    const kind = kindOf(points[0]!);
    const codePoints = points.map((point) => `U+${point.toString(16).toUpperCase().padStart(4, '0')}`);
    const spells = points
      .filter((point) => point >= 0xe0020 && point <= 0xe007e)
      .map((point) => String.fromCharCode(point - 0xe0000))
      .join('');
    found.push({ kind, index: match.index, codePoints, ...(kind === 'tag' && { spells }) });
  }
  return found;
}

/**
 * The tool text fields where hidden characters matter: name, title, description, and every
 * string of its input and output schemas (keys included). Returns only the fields with a finding.
 */
export function findHiddenInTool(tool: {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
}): Array<{
  /** Where: `name`, `title`, `description`, or a schema path such as `inputSchema/properties/q/description`. */
  readonly field: string;
  /** The runs of hidden characters found there. */
  readonly found: HiddenCharacters[];
}> {
  const fields: Array<[string, string]> = [['name', tool.name]];
  if (typeof tool.title === 'string') fields.push(['title', tool.title]);
  if (typeof tool.description === 'string') fields.push(['description', tool.description]);
  collectStrings(tool.inputSchema, 'inputSchema', fields);
  collectStrings(tool.outputSchema, 'outputSchema', fields);
  return fields
    .map(([field, text]) => ({ field, found: findHiddenCharacters(text) }))
    .filter((entry) => entry.found.length > 0);
}

function collectStrings(value: unknown, path: string, into: Array<[string, string]>): void {
  if (typeof value === 'string') into.push([path, value]);
  else if (Array.isArray(value))
    for (const [index, item] of value.entries()) collectStrings(item, `${path}/${index}`, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      collectStrings(key, `${path}/${key} (key)`, into);
      collectStrings(item, `${path}/${key}`, into);
    }
  }
}
