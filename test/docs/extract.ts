// The fenced code blocks of a Markdown page, with where they start and the harness options an
// `<!-- example: ... -->` comment right before a fence gives them.

export interface BlockOptions {
  /** The exit code the block must end with (each command line of an sh block). @defaultValue 0 */
  exit: number;
  /** Text written to the block's stdin (each command line of an sh block); stdin is empty without it. */
  stdin?: string;
  /** ms before the block is killed. @defaultValue 20000 */
  timeout: number;
}

export interface Block {
  /** The page, relative to the repository root with `/` separators (README.md, docs/cli.md). */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The fence's info string, first word, lower case ('' when none). */
  lang: string;
  /** The block's text, lines joined by \n, ending with \n. */
  code: string;
  options: BlockOptions;
  /** What is wrong with the options comment, when something is. */
  optionError?: string;
}

export const DEFAULT_TIMEOUT = 20_000;
const OPTION = /([a-z]+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g;

/** Parses `exit=3 stdin="a\nb" timeout=30000`; unknown names and bad values are errors. */
export function parseOptions(text: string): { options: BlockOptions; error?: string } {
  const options: BlockOptions = { exit: 0, timeout: DEFAULT_TIMEOUT };
  const rest = text.replace(
    OPTION,
    (_, name: string, quoted: string | undefined, bare: string | undefined) => {
      const value = quoted !== undefined ? JSON.parse(`"${quoted}"`) : bare!;
      if (name === 'exit' && /^\d+$/.test(value)) options.exit = Number(value);
      else if (name === 'timeout' && /^\d+$/.test(value) && Number(value) <= 60_000)
        options.timeout = Number(value);
      else if (name === 'stdin') options.stdin = value;
      else throw new OptionError(`unknown example option or bad value: ${name}=${value}`);
      return '';
    },
  );
  if (rest.trim() !== '') throw new OptionError(`cannot read the example options: ${rest.trim()}`);
  return { options };
}

class OptionError extends Error {}

/** Every fenced block (``` or ~~~, any indentation up to 3 spaces) of `markdown`. */
export function extractBlocks(markdown: string, file: string): Block[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: Block[] = [];
  let previous = '';
  for (let index = 0; index < lines.length; index++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[index]!);
    if (!open) {
      if (lines[index]!.trim() !== '') previous = lines[index]!.trim();
      continue;
    }
    const fence = open[1]!;
    const start = index;
    const body: string[] = [];
    index++;
    while (
      index < lines.length &&
      !new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(lines[index]!)
    ) {
      body.push(lines[index]!);
      index++;
    }
    const block: Block = {
      file,
      line: start + 1,
      lang: open[2]!.toLowerCase(),
      code: `${body.join('\n')}\n`,
      options: { exit: 0, timeout: DEFAULT_TIMEOUT },
    };
    const comment = /^<!--\s*example:(.*?)-->$/.exec(previous);
    if (comment) {
      try {
        block.options = parseOptions(comment[1]!).options;
      } catch (error) {
        if (!(error instanceof OptionError)) throw error;
        block.optionError = error.message;
      }
    }
    blocks.push(block);
    previous = '';
  }
  return blocks;
}
