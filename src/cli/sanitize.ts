/**
 * A server's text must not drive the terminal: control characters (C0 but newline and tab, DEL,
 * C1), and the invisible Unicode that reorders or hides text (bidirectional overrides and
 * isolates, zero-width characters), are shown as visible escapes such as `\x1b` and `\u202e`.
 * An escape sequence is neutralised by its ESC: `\x1b[31m` prints as those seven characters.
 */
import { INVISIBLE_CHARACTERS } from '../index.js';

const UNSAFE = new RegExp(`[${INVISIBLE_CHARACTERS}]`, 'g');
const UNSAFE_IN_LINE = new RegExp(`[\\t\\n${INVISIBLE_CHARACTERS}]`, 'g');

function escapeCharacter(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The sanitiser of a run: `--raw` keeps the server's text as it is. */
export interface TextPolicy {
  /** Multi-line text: it keeps its newlines and tabs. */
  text: (value: string) => string;
  /** For one-line places (table cells, headers): newlines and tabs are escaped too. */
  line: (value: string) => string;
}

/** Server text as a terminal may show it. */
export const SAFE: TextPolicy = {
  text: (value) => value.replace(UNSAFE, escapeCharacter),
  line: (value) => value.replace(UNSAFE_IN_LINE, escapeCharacter),
};

/** `--raw`: server text as it is. */
export const RAW: TextPolicy = { text: (value) => value, line: (value) => value };
