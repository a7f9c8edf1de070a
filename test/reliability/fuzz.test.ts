// Fuzzing the whole read path of a real StdioTransport: random byte streams, written by a real
// process (raw-echo.mjs) in random pieces, through the pipe, the framer, the JSON-RPC classifier
// and the 'message' event. The framer alone is fuzzed in test/transport/stdio/framer.test.ts; here
// the question is whether the transport around it delivers the same, whatever the split.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { Framer } from '../../src/transport/stdio/framer.js';
import { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import type { CloseReason } from '../../src/transport/transport.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { assertGroupsGone } from '../helpers/reliability.js';

guardProcesses();

const QUICK = { stdinGrace: 500, termGrace: 500, stderr: 'discard' } as const;
const END = 'fuzz/end';

const text = fc.string({ unit: 'binary', maxLength: 30 });
const requestId = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.string({ unit: 'binary', maxLength: 10 }));
const params = fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const method = text.filter((name) => name !== END);
/** A JSON-RPC message as a server writes it. */
const message = fc.oneof(
  fc.record(
    { jsonrpc: fc.constant('2.0'), id: requestId, method, params },
    { requiredKeys: ['jsonrpc', 'id', 'method'] },
  ),
  fc.record({ jsonrpc: fc.constant('2.0'), method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: requestId, result: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(requestId, fc.constant(null)),
    error: fc.record({ code: fc.integer(), message: text }),
  }),
);
/** A line that is not a JSON-RPC message (no newline in it). */
const junk = fc.oneof(
  fc.constant(''),
  text.map((t) => `Loading ${t.replace(/[\n\r]/g, ' ')} [====    ]\r`),
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((value) => typeof value !== 'object' || value === null || Array.isArray(value))
    .map((value) => JSON.stringify(value)),
  fc
    .dictionary(text, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })
    .filter((o) => !Object.hasOwn(o, 'jsonrpc'))
    .map((o) => JSON.stringify(o)),
  fc.array(message, { minLength: 1, maxLength: 2 }).map((batch) => JSON.stringify(batch)),
);
type Line = { message: unknown; bytes: Buffer } | { message: undefined; bytes: Buffer };
const line: fc.Arbitrary<Line> = fc.oneof(
  message.map((m) => {
    const bytes = Buffer.from(JSON.stringify(m));
    return { message: JSON.parse(bytes.toString()) as unknown, bytes };
  }),
  junk.map((t) => ({ message: undefined, bytes: Buffer.from(t) })),
  // Invalid UTF-8 outside a string: junk too.
  fc
    .uint8Array({ maxLength: 20 })
    .map((b) => ({ message: undefined, bytes: Buffer.from([0xff, ...b.filter((x) => x !== 0x0a)]) })),
);
const cuts = fc.array(fc.nat({ max: 4096 }), { maxLength: 12 });

/** Starts raw-echo.mjs; `stream(bytes, cuts)` has it write the bytes back, and resolves at its end marker. */
async function rawEcho(limits: { maxMessageBytes: number; maxJunkLines: number }) {
  const transport = new StdioTransport(nodeServer('raw-echo.mjs', [], { ...QUICK, ...limits }));
  let received: JsonRpcMessage[] = [];
  let closed: CloseReason | undefined;
  let waiter: (() => void) | undefined;
  transport.on('message', (m) => {
    received.push(m);
    if ('method' in m && m.method === END) waiter?.();
  });
  transport.on('close', (reason) => {
    closed = reason;
    waiter?.();
  });
  await transport.start();
  let nextId = 1;
  /** Resolves with what arrived up to the end marker (included), or up to the close. */
  const stream = async (bytes: Buffer, at: number[]) => {
    received = [];
    const done = new Promise<void>((resolve) => {
      waiter = resolve;
    });
    transport.send({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'raw',
      params: { base64: bytes.toString('base64'), cuts: at },
    });
    const timer = setTimeout(() => waiter?.(), 10_000);
    await done;
    clearTimeout(timer);
    return { messages: received, closed };
  };
  return { transport, stream };
}

/** What a framer reports for the whole stream written in one piece: messages, then a fatal close if any. */
function oracle(bytes: Buffer, limits: { maxMessageBytes: number; maxJunkLines: number }) {
  const messages: unknown[] = [];
  let fatal: CloseReason | undefined;
  const framer = new Framer({
    ...limits,
    onMessage: (classified) => messages.push(classified.message),
    onJunk: () => {},
    onFatal: (reason) => {
      fatal = reason;
    },
  });
  framer.push(bytes);
  framer.end();
  return { messages, fatal };
}

test('a stream of messages and junk lines, cut anywhere, arrives as the same messages through a live transport', async () => {
  const limits = { maxMessageBytes: 1 << 20, maxJunkLines: Number.MAX_SAFE_INTEGER };
  const { transport, stream } = await rawEcho(limits);
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { maxLength: 20 }),
      fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 20, maxLength: 20 }),
      cuts,
      async (lines, endings, at) => {
        runs++;
        const bytes = Buffer.concat(lines.flatMap((l, i) => [l.bytes, Buffer.from(endings[i]!)]));
        const { messages, closed } = await stream(bytes, at);
        assert.equal(closed, undefined, 'the transport stayed open');
        const expected = lines.flatMap((l) => (l.message === undefined ? [] : [l.message]));
        assert.deepEqual(messages.slice(0, -1), expected);
        assert.equal((messages.at(-1) as { method?: string } | undefined)?.method, END);
      },
    ),
    { numRuns: 150 },
  );
  assert.equal(runs, 150);
  const pid = transport.pid!;
  await transport.close();
  await transport.exited;
  await assertGroupsGone([pid]);
});

test('random bytes, cut anywhere: what a framer reads from the whole stream, never a throw', async () => {
  const limits = { maxMessageBytes: 1 << 20, maxJunkLines: Number.MAX_SAFE_INTEGER };
  const { transport, stream } = await rawEcho(limits);
  // Start the transport's stream with a message, so its first-line rule (a BOM) is behind it.
  const first = Buffer.from('{"jsonrpc":"2.0","method":"first"}\n');
  const opening = await stream(first, []);
  assert.deepEqual(
    opening.messages.map((m) => (m as { method?: string }).method),
    ['first', END],
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.oneof(
          fc.uint8Array({ maxLength: 24 }),
          message.map((m) => Buffer.from(`${JSON.stringify(m)}\n`)),
          fc.constantFrom(
            ...['\n', '\r\n', '\r', '{', '"', '\\', 'é', '😀', '\ufeff'].map((s) => Buffer.from(s)),
            Buffer.from([0xc3]),
            Buffer.from([0xf0, 0x9f]),
            Buffer.from([0x80]),
          ),
        ),
        { maxLength: 30 },
      ),
      cuts,
      async (pieces, at) => {
        const bytes = Buffer.concat(pieces);
        const { messages, closed } = await stream(bytes, at);
        assert.equal(closed, undefined);
        const expected = oracle(Buffer.concat([first, bytes, Buffer.from('\n')]), limits).messages.slice(1);
        assert.deepEqual(messages.slice(0, -1), expected);
        assert.equal((messages.at(-1) as { method?: string } | undefined)?.method, END);
      },
    ),
    { numRuns: 150 },
  );
  const pid = transport.pid!;
  await transport.close();
  await transport.exited;
  await assertGroupsGone([pid]);
});

test('over the caps (a long line, too much junk) the transport closes with the reason and limit, having delivered what came before', async () => {
  const pids: number[] = [];
  const outcomes: Record<string, number> = { message_too_large: 0, junk_output: 0, open: 0 };
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        maxMessageBytes: fc.integer({ min: 128, max: 4096 }),
        maxJunkLines: fc.integer({ min: 0, max: 4 }),
      }),
      fc.array(
        fc.oneof(
          line.map((l) => Buffer.concat([l.bytes, Buffer.from('\n')])),
          fc.nat({ max: 6000 }).map((size) => Buffer.alloc(size, 'x')), // a long run, maybe over the cap
          fc.constant(Buffer.from('\n')),
        ),
        { maxLength: 12 },
      ),
      cuts,
      async (limits, pieces, at) => {
        const bytes = Buffer.concat(pieces);
        const { transport, stream } = await rawEcho(limits);
        pids.push(transport.pid!);
        const { messages, closed } = await stream(bytes, at);
        const sentinel = Buffer.from(
          `\n${JSON.stringify({ jsonrpc: '2.0', method: END, params: { id: 1 } })}\n`,
        );
        const expected = oracle(Buffer.concat([bytes, sentinel]), limits);
        assert.deepEqual(messages, expected.messages);
        assert.deepEqual(closed, expected.fatal);
        const outcome = expected.fatal?.type ?? 'open';
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        await transport.close();
        await transport.exited;
      },
    ),
    { numRuns: 30 },
  );
  // The generator reaches every outcome.
  assert.ok(
    outcomes.message_too_large! > 0 && outcomes.junk_output! > 0 && outcomes.open! > 0,
    JSON.stringify(outcomes),
  );
  await assertGroupsGone(pids);
});
