import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseMessage } from '../../../src/jsonrpc/classify.js';
import { Framer, type FramerOptions } from '../../../src/transport/stdio/framer.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

type FatalReason = Parameters<FramerOptions['onFatal']>[0];

/** Everything the framer reported, in order. */
type FramerEvent =
  | { type: 'message'; kind: string; message: unknown }
  | { type: 'junk'; reason: string; bytes: number; text: string }
  | { type: 'fatal'; reason: FatalReason };

interface Limits {
  maxMessageBytes?: number;
  maxJunkLines?: number;
}

/** A framer that records what it reports, and its options. */
function recorder(limits: Limits = {}) {
  const events: FramerEvent[] = [];
  const options: FramerOptions = {
    maxMessageBytes: limits.maxMessageBytes ?? 1 << 20,
    maxJunkLines: limits.maxJunkLines ?? 10,
    onMessage: ({ kind, message }) => events.push({ type: 'message', kind, message }),
    onJunk: (reason, bytes, text) => events.push({ type: 'junk', reason, bytes, text }),
    onFatal: (reason) => events.push({ type: 'fatal', reason }),
  };
  return { framer: new Framer(options), events, options };
}

/**
 * Pushes every chunk, then ends the stream (unless `end: false`); checks after every push that the
 * framer never holds more than the cap.
 */
function frame(chunks: Iterable<Uint8Array>, limits: Limits & { end?: boolean } = {}): FramerEvent[] {
  const { framer, events, options } = recorder(limits);
  for (const chunk of chunks) {
    framer.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    assert.ok(framer.heldBytes <= options.maxMessageBytes, `held ${framer.heldBytes} bytes`);
  }
  if (limits.end ?? true) framer.end();
  return events;
}

/** The messages delivered, as the server wrote them. */
function messagesOf(events: FramerEvent[]): unknown[] {
  return events.flatMap((event) => (event.type === 'message' ? [event.message] : []));
}

/** `bytes` cut at the given offsets (any order, duplicates and out-of-range ones ignored). */
function split(bytes: Uint8Array, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.filter((cut) => cut > 0 && cut < bytes.length))].sort((a, b) => a - b);
  const edges = [0, ...at, bytes.length];
  return edges.slice(1).map((end, i) => Buffer.from(bytes.subarray(edges[i], end)));
}

function oneByteAtATime(bytes: Uint8Array): Buffer[] {
  return Array.from(bytes, (byte) => Buffer.from([byte]));
}

const notification = (n: number | string) => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { n },
});
const line = (message: unknown, ending = '\n') => `${JSON.stringify(message)}${ending}`;

describe('framing', () => {
  test('the same messages arrive wherever the chunks split, even inside a character', () => {
    const sent = [
      notification('é'),
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '€ 😀 日本 "q" \\ \n' }] } },
      { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'no such method: ✓' } },
    ];
    const bytes = Buffer.concat([BOM, Buffer.from(line(sent[0]) + line(sent[1], '\r\n') + line(sent[2]))]);
    const whole = frame([bytes]);
    assert.deepEqual(messagesOf(whole), sent);
    assert.equal(whole.length, 3);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        assert.deepEqual(frame(split(bytes, [i, j])), whole, `cut at ${i} and ${j}`);
      }
    }
    assert.deepEqual(frame(oneByteAtATime(bytes)), whole);
  });

  test('several messages in one chunk, and a chunk holding no newline at all', () => {
    const events = frame([
      Buffer.from(line(notification(1)) + line(notification(2)) + line(notification(3)).slice(0, 10)),
      Buffer.from(line(notification(3)).slice(10, 20)),
      Buffer.from(line(notification(3)).slice(20) + line(notification(4))),
    ]);
    assert.deepEqual(messagesOf(events), [1, 2, 3, 4].map(notification));
  });

  test('each message is classified', () => {
    const events = frame([
      Buffer.from(
        line({ jsonrpc: '2.0', id: 1, method: 'roots/list' }) +
          line(notification(1)) +
          line({ jsonrpc: '2.0', id: 1, result: {} }) +
          line({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      ),
    ]);
    assert.deepEqual(
      events.map((event) => event.type === 'message' && event.kind),
      ['request', 'notification', 'response', 'error'],
    );
  });

  test('a trailing \\r is stripped, and only one', () => {
    const events = frame([Buffer.from(`${line(notification(1), '\r\n')}hello\r\n\r\nbye\r\r\n`)]);
    assert.deepEqual(
      events.map((event) => (event.type === 'junk' ? [event.bytes, event.text] : event.type)),
      ['message', [5, 'hello'], [0, ''], [4, 'bye\r']],
    );
    assert.equal(events[2]?.type === 'junk' && events[2].reason, 'blank line');
  });

  test('a UTF-8 BOM at the very start is stripped, even split across chunks', () => {
    const bytes = Buffer.concat([BOM, Buffer.from(line(notification(1)))]);
    for (let at = 0; at <= 4; at++) {
      assert.deepEqual(messagesOf(frame(split(bytes, [at]))), [notification(1)], `cut at ${at}`);
    }
  });

  test('a BOM anywhere else is not stripped: the line is junk', () => {
    const later = frame([Buffer.from(line(notification(1))), BOM, Buffer.from(line(notification(2)))]);
    assert.deepEqual(messagesOf(later), [notification(1)]);
    assert.equal(later[1]?.type, 'junk');
    assert.equal(later[1]?.type === 'junk' && later[1].text, `\ufeff${JSON.stringify(notification(2))}`);

    const afterBlank = frame([Buffer.from('\n'), BOM, Buffer.from(line(notification(2)))]);
    assert.deepEqual(
      afterBlank.map((event) => event.type),
      ['junk', 'junk'],
    );

    const twice = frame([BOM, BOM, Buffer.from(line(notification(2)))]);
    assert.deepEqual(
      twice.map((event) => event.type),
      ['junk'],
    );
  });

  test('a BOM alone on the first line leaves a blank line', () => {
    assert.deepEqual(frame([BOM, Buffer.from('\n')]), [
      { type: 'junk', reason: 'blank line', bytes: 0, text: '' },
    ]);
  });

  test('multi-byte characters survive being fed one byte at a time', () => {
    const text = 'é € 😀 𝄞 日本語 ﷽';
    const events = frame(oneByteAtATime(Buffer.from(line(notification(text)))));
    assert.deepEqual(messagesOf(events), [notification(text)]);
  });

  test('invalid UTF-8 never throws: inside a string it becomes U+FFFD, elsewhere the line is junk', () => {
    const inString = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"m","params":{"t":"a'),
      Buffer.from([0xff, 0xc3, 0x28, 0x80, 0xed, 0xa0, 0x80, 0xe2, 0x82]), // bad, truncated, surrogate
      Buffer.from('"}}\n'),
    ]);
    const outside = Buffer.from([0xfe, 0xff, 0x7b, 0xc0, 0xaf, 0x0a]);
    const truncatedAtEnd = Buffer.from([0x7b, 0xf0, 0x9f, 0x98, 0x0a]); // "{" + 3 of 4 bytes of 😀
    for (const chunks of [
      [inString, outside, truncatedAtEnd],
      oneByteAtATime(Buffer.concat([inString, outside, truncatedAtEnd])),
    ]) {
      const events = frame(chunks);
      assert.equal(events.length, 3);
      const [first, second, third] = events;
      assert.equal(first?.type, 'message');
      const t = (first as { message: { params: { t: string } } }).message.params.t;
      assert.ok(t.startsWith('a\ufffd'), JSON.stringify(t));
      assert.ok(!t.includes('\n'));
      assert.equal(second?.type, 'junk');
      assert.equal(second?.type === 'junk' && second.bytes, 5);
      assert.ok(second?.type === 'junk' && second.text.includes('\ufffd'));
      assert.equal(third?.type, 'junk');
    }
  });

  test('end() delivers a last line that has no newline, once', () => {
    const { framer, events } = recorder();
    framer.push(Buffer.from(line(notification(1)) + JSON.stringify(notification(2)).slice(0, 9)));
    framer.push(Buffer.from(`${JSON.stringify(notification(2)).slice(9)}\r`));
    assert.deepEqual(messagesOf(events), [notification(1)]);
    assert.ok(framer.heldBytes > 0);
    framer.end();
    assert.deepEqual(messagesOf(events), [notification(1), notification(2)]);
    assert.equal(framer.heldBytes, 0);
    framer.end();
    assert.equal(events.length, 2);
  });

  test('end() reports an unterminated junk line, and does nothing when no bytes are held', () => {
    assert.deepEqual(
      frame([Buffer.from('oops')]).map((event) => event.type),
      ['junk'],
    );
    assert.deepEqual(frame([Buffer.from(line(notification(1)))]), [
      { type: 'message', kind: 'notification', message: notification(1) },
    ]);
    assert.deepEqual(frame([]), []);
    assert.deepEqual(frame([Buffer.alloc(0)]), []);
  });

  test('without end(), an unterminated line is not delivered', () => {
    assert.deepEqual(frame([Buffer.from(JSON.stringify(notification(1)))], { end: false }), []);
  });
});

describe('junk lines', () => {
  test('are reported with a reason, their size in bytes and their text, and dropped', () => {
    const events = frame([
      Buffer.from(
        'Server v1.2 starting… ✓\n[1,2]\n42\n{"jsonrpc":"1.0","method":"m"}\n{"jsonrpc":"2.0","id":1.5,"result":{}}\n',
      ),
    ]);
    assert.deepEqual(
      events.map((event) => event.type === 'junk' && [event.bytes, event.text]),
      [
        [27, 'Server v1.2 starting… ✓'],
        [5, '[1,2]'],
        [2, '42'],
        [30, '{"jsonrpc":"1.0","method":"m"}'],
        [38, '{"jsonrpc":"2.0","id":1.5,"result":{}}'],
      ],
    );
    const reasons = events.map((event) => (event.type === 'junk' ? event.reason : ''));
    assert.match(reasons[0]!, /^not JSON \(/);
    assert.equal(reasons[1], 'batches (JSON arrays) are not allowed in MCP');
    assert.equal(reasons[2], 'expected a JSON object, got number');
    assert.equal(reasons[3], '"jsonrpc" must be "2.0"');
    assert.equal(reasons[4], 'a response "id" must be a string or an integer');
  });

  test('blank lines are junk', () => {
    assert.deepEqual(frame([Buffer.from('\n\r\n')]), [
      { type: 'junk', reason: 'blank line', bytes: 0, text: '' },
      { type: 'junk', reason: 'blank line', bytes: 0, text: '' },
    ]);
  });

  test('up to maxJunkLines in a row are tolerated; one more is fatal', () => {
    const tolerated = frame([Buffer.from(`a\nb\nc\n${line(notification(1))}`)], { maxJunkLines: 3 });
    assert.deepEqual(
      tolerated.map((event) => event.type),
      ['junk', 'junk', 'junk', 'message'],
    );

    const events = frame([Buffer.from(`a\nb\nc\n\nd\n${line(notification(1))}`)], { maxJunkLines: 3 });
    assert.deepEqual(
      events.map((event) => event.type),
      ['junk', 'junk', 'junk', 'junk', 'fatal'],
    );
    assert.deepEqual(events.at(-1), { type: 'fatal', reason: { type: 'junk_output', limit: 3 } });
  });

  test('maxJunkLines 0 makes the first junk line fatal', () => {
    assert.deepEqual(
      frame([Buffer.from(`${line(notification(1))}x\n${line(notification(2))}`)], { maxJunkLines: 0 }).map(
        (event) => event.type,
      ),
      ['message', 'junk', 'fatal'],
    );
  });

  test('a valid message resets the count', () => {
    const junk = 'x\n\ny\n';
    const text = `${junk}${line(notification(1))}${junk}${line(notification(2))}${junk}`;
    const events = frame([Buffer.from(text)], { maxJunkLines: 3 });
    assert.equal(events.filter((event) => event.type === 'fatal').length, 0);
    assert.deepEqual(messagesOf(events), [notification(1), notification(2)]);
    assert.equal(events.filter((event) => event.type === 'junk').length, 9);
  });

  test('the fatal junk line ends the stream even split over chunks', () => {
    const bytes = Buffer.from(`a\nb\n${line(notification(1))}`);
    for (let at = 0; at <= bytes.length; at++) {
      assert.deepEqual(
        frame(split(bytes, [at]), { maxJunkLines: 1 }).map((event) => event.type),
        ['junk', 'junk', 'fatal'],
      );
    }
  });

  test('a junk line never corrupts the message after it', () => {
    const junk = [
      '{"jsonrpc":"2.0","method":"m","params":{"unterminated":"',
      '{"jsonrpc":"2.0","method":"a"} trailing',
      '\\',
      '"',
      '\u001b[2K\rprogress 50%',
    ].map((text) => Buffer.from(`${text}\n`));
    junk.push(Buffer.from([0xe2, 0x82, 0x0a]), Buffer.from([0xf0, 0x0a])); // lines ending mid-character
    const message = notification('€😀');
    for (const bad of junk) {
      const bytes = Buffer.concat([bad, Buffer.from(line(message))]);
      for (let at = 0; at <= bytes.length; at++) {
        const events = frame(split(bytes, [at]));
        assert.deepEqual(
          events.map((event) => event.type),
          ['junk', 'message'],
        );
        assert.deepEqual(messagesOf(events), [message], `${JSON.stringify(bad.toString())} cut at ${at}`);
      }
    }
  });
});

describe('size cap', () => {
  test('a line of exactly maxMessageBytes is accepted; one byte more is fatal', () => {
    const message = line(notification('x'.repeat(50)));
    const size = Buffer.byteLength(message) - 1;
    for (const chunks of [[Buffer.from(message)], oneByteAtATime(Buffer.from(message))]) {
      assert.deepEqual(messagesOf(frame(chunks, { maxMessageBytes: size })), [notification('x'.repeat(50))]);
      assert.deepEqual(frame(chunks, { maxMessageBytes: size - 1 }), [
        { type: 'fatal', reason: { type: 'message_too_large', limit: size - 1 } },
      ]);
    }
  });

  test('the cap counts bytes, not characters', () => {
    const message = line(notification('é'.repeat(20)));
    const bytes = Buffer.byteLength(message) - 1;
    assert.equal(frame([Buffer.from(message)], { maxMessageBytes: bytes - 1 })[0]?.type, 'fatal');
    assert.equal(frame([Buffer.from(message)], { maxMessageBytes: bytes })[0]?.type, 'message');
  });

  test('is enforced while the line arrives: 10x the cap without a newline never holds more than the cap', () => {
    const cap = 64 * 1024;
    const { framer, events } = recorder({ maxMessageBytes: cap });
    framer.push(Buffer.from(line(notification(1))));
    let fed = 0;
    let fatalAt = -1;
    const chunk = Buffer.alloc(1000, 'x');
    while (fed < 10 * cap) {
      framer.push(chunk);
      fed += chunk.length;
      assert.ok(framer.heldBytes <= cap, `held ${framer.heldBytes} after ${fed} bytes`);
      if (fatalAt === -1 && events.some((event) => event.type === 'fatal')) fatalAt = fed;
    }
    assert.equal(
      fatalAt,
      Math.ceil((cap + 1) / chunk.length) * chunk.length,
      'fatal as soon as the cap is passed',
    );
    assert.equal(framer.heldBytes, 0, 'held bytes let go');
    framer.push(Buffer.from(`\n${line(notification(2))}`));
    framer.end();
    assert.deepEqual(events, [
      { type: 'message', kind: 'notification', message: notification(1) },
      { type: 'fatal', reason: { type: 'message_too_large', limit: cap } },
    ]);
  });

  test('one chunk bigger than the cap is refused without being held', () => {
    const { framer, events } = recorder({ maxMessageBytes: 100 });
    framer.push(Buffer.alloc(1000, 'x'));
    assert.equal(framer.heldBytes, 0);
    assert.deepEqual(events, [{ type: 'fatal', reason: { type: 'message_too_large', limit: 100 } }]);
  });

  test('a too long line inside one chunk is fatal, and the lines before it are delivered', () => {
    const text = `${line(notification(1))}${'x'.repeat(200)}\n${line(notification(2))}`;
    assert.deepEqual(frame([Buffer.from(text)], { maxMessageBytes: 100 }), [
      { type: 'message', kind: 'notification', message: notification(1) },
      { type: 'fatal', reason: { type: 'message_too_large', limit: 100 } },
    ]);
  });
});

describe('after stop or a fatal error', () => {
  test('nothing is delivered after stop(), and held bytes are let go', () => {
    const { framer, events } = recorder();
    framer.push(Buffer.from(`${line(notification(1))}{"jsonrpc"`));
    framer.stop();
    assert.equal(framer.heldBytes, 0);
    framer.push(Buffer.from(`:"2.0","method":"m"}\n${line(notification(2))}junk\n\n\n`));
    framer.end();
    assert.deepEqual(events, [{ type: 'message', kind: 'notification', message: notification(1) }]);
  });

  test('stop() from inside onMessage drops the rest of the chunk', () => {
    const events: unknown[] = [];
    const framer: Framer = new Framer({
      maxMessageBytes: 1024,
      maxJunkLines: 0,
      onMessage: ({ message }) => {
        events.push(message);
        framer.stop();
      },
      onJunk: (reason) => events.push(reason),
      onFatal: (reason) => events.push(reason),
    });
    framer.push(Buffer.from(`${line(notification(1))}${line(notification(2))}junk\n`));
    framer.end();
    assert.deepEqual(events, [notification(1)]);
  });

  test('stop() from inside onJunk means no onFatal', () => {
    const events: unknown[] = [];
    const framer: Framer = new Framer({
      maxMessageBytes: 1024,
      maxJunkLines: 0,
      onMessage: ({ message }) => events.push(message),
      onJunk: (reason) => {
        events.push(reason);
        framer.stop();
      },
      onFatal: (reason) => events.push(reason),
    });
    framer.push(Buffer.from(`\n${line(notification(2))}`));
    assert.deepEqual(events, ['blank line']);
  });

  test('nothing is delivered after a fatal error, even from the same chunk', () => {
    for (const limits of [{ maxJunkLines: 0 }, { maxMessageBytes: 10 }]) {
      const { framer, events } = recorder(limits);
      framer.push(Buffer.from(`xxxxxxxxxxxxxxxxxxxx\n${line(notification(1))}\n`));
      framer.push(Buffer.from(line(notification(2))));
      framer.end();
      assert.equal(events.at(-1)?.type, 'fatal');
      assert.equal(events.filter((event) => event.type === 'fatal').length, 1);
      assert.deepEqual(messagesOf(events), []);
      assert.equal(framer.heldBytes, 0);
    }
  });
});

// ---- properties ---------------------------------------------------------------------------------

const requestId = fc.oneof(
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.maxSafeInteger(),
  fc.string({ unit: 'binary' }),
);
const text = fc.string({ unit: 'binary', maxLength: 40 });
const params = fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
const validMessage = fc.oneof(
  fc.record(
    { jsonrpc: fc.constant('2.0'), id: requestId, method: text, params },
    { requiredKeys: ['jsonrpc', 'id', 'method'] },
  ),
  fc.record({ jsonrpc: fc.constant('2.0'), method: text, params }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: requestId, result: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(requestId, fc.constant(null)),
    error: fc.record(
      { code: fc.integer(), message: text, data: fc.jsonValue({ maxDepth: 2 }) },
      { requiredKeys: ['code', 'message'] },
    ),
  }),
);

/** A line that is not a JSON-RPC message, without its newline. */
const junkLine = fc.oneof(
  fc.constant(Buffer.alloc(0)), // blank
  text.map((t) => Buffer.from(`# ${t.replaceAll('\n', ' ')}`)), // a log line
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
    .map((v) => Buffer.from(JSON.stringify(v))), // JSON, not an object
  fc
    .dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
    .filter((o) => !Object.hasOwn(o, 'jsonrpc'))
    .map((o) => Buffer.from(JSON.stringify(o))), // no "jsonrpc"
  fc.array(validMessage, { minLength: 1, maxLength: 2 }).map((batch) => Buffer.from(JSON.stringify(batch))), // a batch
  fc
    .uint8Array({ maxLength: 30 })
    .map((bytes) => Buffer.from([0xff, ...bytes.filter((byte) => byte !== 0x0a)])), // not UTF-8
  validMessage.map((m) => Buffer.concat([BOM, Buffer.from(JSON.stringify(m))])), // a BOM, but not at the start
);

type Item = { kind: 'message'; message: unknown; bytes: Buffer } | { kind: 'junk'; bytes: Buffer };

const item: fc.Arbitrary<Item> = fc.oneof(
  validMessage.map((message) => {
    const bytes = Buffer.from(JSON.stringify(message));
    return { kind: 'message' as const, message: JSON.parse(bytes.toString()) as unknown, bytes };
  }),
  junkLine.map((bytes) => ({ kind: 'junk' as const, bytes })),
);

/** How to cut a stream: chunk sizes, used in turn until the stream is used up (none: one chunk). */
const chunkSizes = fc.oneof(
  fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 6 }),
  fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 6 }),
);

function chunkBy(bytes: Buffer, sizes: number[]): Buffer[] {
  if (sizes.length === 0) return [bytes];
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/**
 * What the framer must report for a stream, worked out line by line on the whole stream: the
 * reference the chunked runs are held to.
 */
function reference(bytes: Buffer, limits: Required<Limits>): FramerEvent[] {
  const events: FramerEvent[] = [];
  let junkInARow = 0;
  let start = 0;
  for (let first = true; start < bytes.length; first = false) {
    const newline = bytes.indexOf(0x0a, start);
    let end = newline === -1 ? bytes.length : newline;
    let from = start;
    start = end + 1;
    if (end - from > limits.maxMessageBytes) {
      events.push({ type: 'fatal', reason: { type: 'message_too_large', limit: limits.maxMessageBytes } });
      return events;
    }
    if (first && bytes.subarray(from, end).subarray(0, 3).equals(BOM)) from += 3;
    if (end > from && bytes[end - 1] === 0x0d) end -= 1;
    const text = bytes.toString('utf8', from, end);
    const classified = from === end ? { kind: 'invalid' as const, reason: 'blank line' } : parseMessage(text);
    if (classified.kind !== 'invalid') {
      junkInARow = 0;
      events.push({ type: 'message', kind: classified.kind, message: classified.message });
      continue;
    }
    events.push({ type: 'junk', reason: classified.reason, bytes: end - from, text });
    if (++junkInARow > limits.maxJunkLines) {
      events.push({ type: 'fatal', reason: { type: 'junk_output', limit: limits.maxJunkLines } });
      return events;
    }
  }
  return events;
}

describe('properties', () => {
  test('messages and junk lines, cut anywhere, give what one single chunk gives', () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 25 }),
        fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 25, maxLength: 25 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 6 }),
        chunkSizes,
        (items, endings, withBom, lastTerminated, maxJunkLines, sizes) => {
          const lines = items.map((it, i) =>
            Buffer.concat([
              it.bytes,
              i < items.length - 1 || lastTerminated ? Buffer.from(endings[i]!) : Buffer.alloc(0),
            ]),
          );
          const bytes = Buffer.concat([withBom ? BOM : Buffer.alloc(0), ...lines]);
          const limits = { maxMessageBytes: 1 << 20, maxJunkLines };
          const whole = frame([bytes], limits);

          // What was sent: each message delivered in order, each junk line dropped, until more
          // than maxJunkLines junk lines in a row.
          const expected: unknown[] = [];
          let junkInARow = 0;
          if (items.length === 0 && withBom) expected.push('junk', ...(maxJunkLines === 0 ? ['fatal'] : [])); // a BOM alone
          for (const [i, it] of items.entries()) {
            const isLast = i === items.length - 1;
            if (isLast && !lastTerminated && it.bytes.length === 0 && !(i === 0 && withBom)) break; // nothing held
            // A message after a BOM is junk, except on the first line when the stream has no BOM.
            const bomFirst = i === 0 && !withBom && it.kind === 'junk' && it.bytes.subarray(0, 3).equals(BOM);
            const message =
              it.kind === 'message'
                ? it.message
                : bomFirst
                  ? JSON.parse(it.bytes.subarray(3).toString())
                  : undefined;
            if (message !== undefined) {
              junkInARow = 0;
              expected.push(message);
              continue;
            }
            expected.push('junk');
            if (++junkInARow > maxJunkLines) {
              expected.push('fatal');
              break;
            }
          }
          assert.deepEqual(
            whole.map((event) => (event.type === 'message' ? event.message : event.type)),
            expected,
          );
          assert.deepEqual(frame(chunkBy(bytes, sizes), limits), whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('random byte streams, cut anywhere: never a throw, never more than the cap held, same events', () => {
    const fragment = fc.oneof(
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 16 }) },
      { weight: 1, arbitrary: validMessage.map((m) => Buffer.from(JSON.stringify(m))) },
      { weight: 3, arbitrary: validMessage.map((m) => Buffer.from(`${JSON.stringify(m)}\n`)) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          ...[
            '\n',
            '\r\n',
            '\r',
            '{',
            '}',
            '"',
            '\\',
            'é',
            '€',
            '😀',
            '\ufeff',
            '{"jsonrpc":"2.0",',
            '"method":"m"}',
          ].map((s) => Buffer.from(s)),
          BOM,
          Buffer.from([0xff]),
          Buffer.from([0xc3]),
          Buffer.from([0xe2, 0x82]),
          Buffer.from([0xf0, 0x9f, 0x98]),
          Buffer.from([0x80]),
        ),
      },
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { maxLength: 40 }),
        fc.oneof(
          { weight: 1, arbitrary: fc.integer({ min: 0, max: 64 }) },
          { weight: 3, arbitrary: fc.integer({ min: 64, max: 1 << 16 }) },
        ),
        fc.integer({ min: 0, max: 8 }),
        chunkSizes,
        (fragments, maxMessageBytes, maxJunkLines, sizes) => {
          const bytes = Buffer.concat(fragments);
          const limits = { maxMessageBytes, maxJunkLines };
          const expected = reference(bytes, limits);
          assert.deepEqual(frame([bytes], limits), expected);
          assert.deepEqual(frame(chunkBy(bytes, sizes), limits), expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('long lines in random chunks never make the framer hold more than the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4096 }),
        fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (cap, sizes, newlines) => {
          const { framer, events } = recorder({
            maxMessageBytes: cap,
            maxJunkLines: Number.MAX_SAFE_INTEGER,
          });
          let line = 0; // bytes of the current line so far
          let tooLong = false;
          for (const [i, size] of sizes.entries()) {
            const chunk = Buffer.alloc(size, 'x');
            if (newlines[i] && size > 0) chunk[size >> 1] = 0x0a;
            framer.push(chunk);
            assert.ok(framer.heldBytes <= cap);
            if (tooLong) continue;
            const newline = chunk.indexOf(0x0a);
            if (newline === -1) line += size;
            else {
              tooLong = line + newline > cap;
              line = tooLong ? line : size - newline - 1;
            }
            tooLong ||= line > cap;
          }
          const fatal = events.filter((event) => event.type === 'fatal');
          assert.deepEqual(
            fatal,
            tooLong ? [{ type: 'fatal', reason: { type: 'message_too_large', limit: cap } }] : [],
          );
          if (tooLong) assert.equal(framer.heldBytes, 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
