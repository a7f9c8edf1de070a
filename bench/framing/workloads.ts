// The framing workloads: 100,000 small tools/call results, or one large one, as the bytes a server
// writes cut in 64 KiB chunks, with the check of what a reader delivered. Seeded: every run of the
// bench frames the same bytes.
import assert from 'node:assert/strict';
import { seededRandom } from '../../test/helpers/seeded-random.mjs';
import { CHUNK_BYTES, SMALL_MESSAGES } from './types.js';

const MiB = 1024 * 1024;

export interface Workload {
  readonly name: string;
  readonly bytes: number;
  readonly messages: number;
  readonly chunks: Buffer[];
  /** The message lines, without their newline, for the parse-only runs. */
  readonly lines: Buffer[];
  /** Throws unless `delivered` is exactly the workload's messages; `full` also deep-compares. */
  check(delivered: unknown[], full: boolean): void;
}

const WORDS = [
  'found',
  'match',
  'in',
  'src/index.ts',
  'line',
  'ok',
  'file',
  'written',
  'rows',
  'returned',
  'query',
  'took',
  'ms',
  'café',
  'résumé',
  'user',
  'id',
  '"quoted"',
  'path/to/module.js',
  'no',
  'results',
  '✓',
];

function sentence(random: () => number, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(random() * (maxChars - minChars + 1));
  let text = '';
  while (text.length < target) text += `${text ? ' ' : ''}${WORDS[Math.floor(random() * WORDS.length)]}`;
  return text;
}

function toChunks(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) chunks.push(bytes.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

/** A tools/call result as a server writes it. */
function toolResult(id: number, text: string) {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: false } };
}

type ToolResult = ReturnType<typeof toolResult>;

export function textOf(message: unknown): string {
  return (message as ToolResult).result.content[0]!.text;
}

export function smallMessages(): Workload {
  const random = seededRandom(4);
  const messages: ToolResult[] = [];
  const lines: string[] = [];
  for (let id = 1; id <= SMALL_MESSAGES; id++) {
    const message = toolResult(id, sentence(random, 20, 110));
    messages.push(message);
    lines.push(`${JSON.stringify(message)}\n`);
  }
  const bytes = Buffer.from(lines.join(''));
  const sizes = lines.map((line) => Buffer.byteLength(line));
  const lineBuffers: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    lineBuffers.push(bytes.subarray(at, at + size - 1));
    at += size;
  }
  const min = Math.min(...sizes);
  const max = Math.max(...sizes);
  return {
    name: `${SMALL_MESSAGES.toLocaleString('en-US')} small (${min}-${max} B)`,
    bytes: bytes.length,
    messages: messages.length,
    chunks: toChunks(bytes),
    lines: lineBuffers,
    check(delivered, full) {
      assert.equal(delivered.length, messages.length, 'message count');
      for (let i = 0; i < messages.length; i++) {
        const got = delivered[i] as ToolResult;
        const want = messages[i]!;
        if (full) assert.deepStrictEqual(got, want);
        else {
          assert.equal(got.id, want.id);
          assert.equal(textOf(got), want.result.content[0]!.text);
        }
      }
    },
  };
}

/**
 * One message of exactly `size` bytes (the newline excluded): a tools/call result holding a file's
 * text (lines of code, escaped newlines, quotes, some non-ASCII), like a read_file answer.
 */
export function largeMessage(size: number): Workload {
  const random = seededRandom(size);
  const envelope = Buffer.byteLength(JSON.stringify(toolResult(1, '')));
  const parts: string[] = [];
  let encoded = envelope;
  while (encoded < size - 200) {
    const line = `${'  '.repeat(Math.floor(random() * 4))}const x = "${sentence(random, 10, 70)}"; // ${Math.floor(random() * 1e6)}\n`;
    parts.push(line);
    encoded += Buffer.byteLength(JSON.stringify(line)) - 2;
  }
  parts.push('x'.repeat(size - encoded)); // plain ASCII pads to the exact size
  const text = parts.join('');
  const message = toolResult(1, text);
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  assert.equal(bytes.length, size + 1);
  return {
    name: `1 message of ${size / MiB} MiB`,
    bytes: bytes.length,
    messages: 1,
    chunks: toChunks(bytes),
    lines: [bytes.subarray(0, size)],
    check(delivered, full) {
      assert.equal(delivered.length, 1, 'message count');
      if (full) assert.deepStrictEqual(delivered[0], message);
      else assert.ok(textOf(delivered[0]) === text, 'message text');
    },
  };
}
