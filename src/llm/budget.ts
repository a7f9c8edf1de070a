/**
 * The result budget: a tool result larger than the budget keeps its head and its tail around a
 * marker that says how much was cut and where the whole result is, and the whole result is spilled
 * (to a file by default, or to the host's handler) first. Sizes are UTF-8 bytes of text plus the
 * base64 length of media; a token budget is turned into bytes at BYTES_PER_TOKEN.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeMedia } from './results.js';
import type { RenderedPart } from './types.js';

/**
 * The token estimate: one token per 4 UTF-8 bytes, the usual rough figure for English text and
 * JSON with current tokenizers (denser scripts take more tokens per byte: set maxResultBytes then).
 */
export const BYTES_PER_TOKEN = 4;
/** The budget when none is given: 65,536 bytes (about 16,000 tokens). */
export const DEFAULT_MAX_RESULT_BYTES = 65_536;

/** A whole result handed to a spill handler before it is cut. */
export interface SpilledResult {
  /** The tool's name, as the model knows it. */
  readonly toolName: string;
  /** The provider's id of the call, '' when it has none. */
  readonly callId: string;
  /** The whole result as text (media described, never cut). */
  readonly text: string;
  /** Media left out of what the model is shown, whole. */
  readonly media: ReadonlyArray<{
    /** Its media type. */
    readonly mimeType: string;
    /** Base64. */
    readonly data: string;
  }>;
}

/** Keeps a whole result and tells where: a file path or any locator the host can read back. */
export type SpillHandler = (result: SpilledResult) => Promise<string>;

/** The budget's options. */
export interface BudgetOptions {
  /** The most a result may take, in bytes. Default DEFAULT_MAX_RESULT_BYTES. */
  readonly maxResultBytes?: number;
  /** The most a result may take, in estimated tokens (BYTES_PER_TOKEN bytes each); wins over maxResultBytes. */
  readonly maxResultTokens?: number;
  /** Where a whole result goes when it is cut. Default: a file (mode 0600) under spillDirectory. */
  readonly spill?: SpillHandler;
  /** The default spill's directory. Default `<os.tmpdir()>/conduit-mcp-results` (created with mode 0700). */
  readonly spillDirectory?: string;
}

/** The byte budget the options give. Throws RangeError for a budget that is not a positive integer. */
export function budgetBytes(options: BudgetOptions): number {
  if (options.maxResultTokens !== undefined)
    return positive(options.maxResultTokens, 'maxResultTokens') * BYTES_PER_TOKEN;
  return positive(options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, 'maxResultBytes');
}

function positive(value: number, key: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(
      `${key} must be a positive integer, got ${String(value)}; leave it out for the default`,
    );
  }
  return value;
}

/** `parts` within `maxBytes`: unchanged when they fit, else media described and text cut, the whole spilled. */
export async function applyBudget(
  parts: readonly RenderedPart[],
  maxBytes: number,
  call: { toolName: string; callId: string },
  options: BudgetOptions,
): Promise<RenderedPart[]> {
  const total = parts.reduce(
    (sum, part) => sum + (part.type === 'text' ? Buffer.byteLength(part.text) : part.data.length),
    0,
  );
  if (total <= maxBytes) return [...parts];
  const media = parts.filter((part) => part.type !== 'text');
  const lines = parts.map((part) =>
    part.type === 'text'
      ? part.text
      : describeMedia(part.type, part.mimeType, part.data, 'over the result budget'),
  );
  const text = lines.join('\n\n');
  let location: string;
  try {
    const spill = options.spill ?? fileSpill(options.spillDirectory);
    location = `the whole result is saved at ${await spill({ ...call, text, media })}`;
  } catch (error) {
    location = `the whole result could not be saved (${(error as Error).message}); call the tool again with narrower arguments`;
  }
  const whole = `${text}\n[media left out to keep the result within ${maxBytes} bytes; ${location}]`;
  if (media.length > 0 && Buffer.byteLength(whole) <= maxBytes) return [{ type: 'text', text: whole }];
  return [{ type: 'text', text: cutMiddle(text, maxBytes, total, location) }];
}

/** The head and tail of `text` around a marker, all within `maxBytes` where the marker itself fits. */
export function cutMiddle(text: string, maxBytes: number, totalBytes: number, location: string): string {
  const bytes = Buffer.from(text);
  const marker = (cut: number, cutLines: number) =>
    `\n[... ${cut} of ${totalBytes} bytes (${cutLines} lines) cut here to keep the result within ${maxBytes} bytes; ${location} ...]\n`;
  const room = maxBytes - Buffer.byteLength(marker(bytes.length, countLines(text)));
  if (bytes.length <= room) return `${text}${marker(0, 0)}`.trimEnd();
  if (room <= 0) return marker(bytes.length, countLines(text)).trim();
  const head = bytes.subarray(0, utf8Start(bytes, Math.ceil(room / 2)));
  const tailStart = utf8Start(bytes, bytes.length - (room - head.length));
  const cut = bytes.subarray(head.length, tailStart);
  return `${head.toString()}${marker(cut.length, countLines(cut.toString()))}${bytes.subarray(tailStart).toString()}`;
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** The first character boundary at or after `index`. */
function utf8Start(bytes: Buffer, index: number): number {
  let at = Math.max(0, index);
  while (at < bytes.length && ((bytes[at] as number) & 0xc0) === 0x80) at++;
  return at;
}

/** The default spill: the text to `<directory>/<tool>-<time>-<random>.txt`, each medium beside it. */
export function fileSpill(directory = path.join(tmpdir(), 'conduit-mcp-results')): SpillHandler {
  return async (result) => {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const stem = path.join(
      directory,
      `${result.toolName.replace(/[^a-zA-Z0-9_-]/g, '_')}-${Date.now()}-${randomBytes(4).toString('hex')}`,
    );
    const mediaFiles: string[] = [];
    for (const [index, medium] of result.media.entries()) {
      const extension = (medium.mimeType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/gi, '') || 'bin';
      const file = `${stem}-${index + 1}.${extension}`;
      await writeFile(file, Buffer.from(medium.data, 'base64'), { mode: 0o600 });
      mediaFiles.push(file);
    }
    const listed =
      mediaFiles.length > 0 ? `\n\n[media saved beside this file: ${mediaFiles.join(', ')}]` : '';
    await writeFile(`${stem}.txt`, `${result.text}${listed}`, { mode: 0o600 });
    return `${stem}.txt`;
  };
}
