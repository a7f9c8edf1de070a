/**
 * A tool search index: BM25F over a tool's name, title, description and parameter names, each
 * field weighted (a match in the name counts most). Words are split at case changes, digits,
 * `_`, `-`, `.` and every other non-letter, lower-cased; a query word of 3 or more letters also
 * matches the longer words it starts (at half weight), so `file` finds `filesystem`. Pure and
 * in memory: build it once per tool list, search it many times.
 */

/** What the index reads of a tool. */
export interface SearchableTool {
  /** The tool's name, returned in matches as given. */
  readonly name: string;
  /** Its title, searched. */
  readonly title?: string;
  /** Its description, searched. */
  readonly description?: string;
  /** Its input schema: the names of its properties are searched. */
  readonly inputSchema?: {
    /** The argument schemas by name; the names are searched. */
    properties?: Record<string, unknown>;
  } & Record<string, unknown>;
}

/** One hit: the tool's name and its score (higher is better; only comparable within one search). */
export interface ToolMatch {
  /** The tool's name. */
  readonly name: string;
  /** Its score. */
  readonly score: number;
}

/** Field weights: a word in the name counts 3 times one in the description. */
export const FIELD_WEIGHTS = {
  /** Weight of a word of the name. */
  name: 3,
  /** Weight of a word of the title. */
  title: 2,
  /** Weight of a word of an argument's name. */
  parameters: 1.5,
  /** Weight of a word of the description. */
  description: 1,
} as const;
const K1 = 1.2;
const B = 0.75;
const PREFIX_WEIGHT = 0.5;
const MIN_PREFIX = 3;

type Field = keyof typeof FIELD_WEIGHTS;
/** A word: an upper-case run (HTTP), a capitalised or lower-case word, digits, or letters of a caseless script. */
const WORD = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{L}+/gu;

/** Words of `text` as the index keeps them. */
export function tokenize(text: string): string[] {
  return Array.from(text.matchAll(WORD), (match) => match[0].toLowerCase());
}

/** A built index over a list of tools. */
export interface ToolIndex {
  /** The best matches for `query`, best first: at most `limit` (default 10), only tools that match a word. */
  search(query: string, options?: { limit?: number }): ToolMatch[];
  /** How many tools the index holds. */
  readonly size: number;
}

/** Builds the index over `tools` (names are returned as given). */
export function buildToolIndex(tools: readonly SearchableTool[]): ToolIndex {
  const postings = new Map<string, Array<{ doc: number; weighted: number }>>();
  const lengths: number[] = [];
  for (const [doc, tool] of tools.entries()) {
    const fields: Record<Field, string> = {
      name: tool.name,
      title: tool.title ?? '',
      description: tool.description ?? '',
      parameters: Object.keys(tool.inputSchema?.properties ?? {}).join(' '),
    };
    const counts = new Map<string, number>();
    let length = 0;
    for (const field of Object.keys(fields) as Field[]) {
      for (const word of tokenize(fields[field])) {
        counts.set(word, (counts.get(word) ?? 0) + FIELD_WEIGHTS[field]);
        length += FIELD_WEIGHTS[field];
      }
    }
    lengths.push(length);
    for (const [word, weighted] of counts) {
      const list = postings.get(word);
      if (list === undefined) postings.set(word, [{ doc, weighted }]);
      else list.push({ doc, weighted });
    }
  }
  const vocabulary = [...postings.keys()].sort();
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, lengths.length);
  const count = tools.length;

  const addWord = (scores: Float64Array, word: string, weight: number) => {
    const list = postings.get(word);
    if (list === undefined) return;
    const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
    for (const { doc, weighted } of list) {
      const norm = K1 * (1 - B + (B * lengths[doc]!) / (averageLength || 1));
      scores[doc]! += weight * idf * ((weighted * (K1 + 1)) / (weighted + norm));
    }
  };

  return {
    size: count,
    search(query, options = {}) {
      const limit = options.limit ?? 10;
      if (!Number.isSafeInteger(limit) || limit < 1)
        throw new RangeError(`limit must be a positive integer, got ${String(limit)}`);
      const scores = new Float64Array(count);
      for (const word of new Set(tokenize(query))) {
        addWord(scores, word, 1);
        if (word.length < MIN_PREFIX) continue;
        for (
          let at = lowerBound(vocabulary, word);
          at < vocabulary.length && vocabulary[at]!.startsWith(word);
          at++
        ) {
          if (vocabulary[at] !== word) addWord(scores, vocabulary[at]!, PREFIX_WEIGHT);
        }
      }
      return topMatches(scores, tools, limit);
    },
  };
}

function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

const better = (a: ToolMatch, b: ToolMatch) =>
  b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The `limit` best scores, best first, kept in a small sorted list (no sort of every hit). */
function topMatches(scores: Float64Array, tools: readonly SearchableTool[], limit: number): ToolMatch[] {
  const best: ToolMatch[] = [];
  for (let doc = 0; doc < scores.length; doc++) {
    const score = scores[doc]!;
    if (score <= 0) continue;
    const match = { name: tools[doc]!.name, score };
    if (best.length === limit && better(match, best[limit - 1]!) >= 0) continue;
    let at = best.length;
    while (at > 0 && better(match, best[at - 1]!) < 0) at--;
    best.splice(at, 0, match);
    if (best.length > limit) best.pop();
  }
  return best;
}
