import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { serialize } from '../../src/jsonrpc/serialize.js';

// Every character some line reader treats as the end of a line (JavaScript, Python's splitlines).
const LINE_BREAKS = [
  '\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u001c',
  '\u001d',
  '\u001e',
  '\u0085',
  '\u2028',
  '\u2029',
];

/** Strings rich in line breaks, quotes, escapes, astral characters and lone surrogates. */
const hostileString = fc.oneof(
  fc.string({
    unit: fc.constantFrom(...LINE_BREAKS, '\r\n', 'a', ' ', '"', '\\', 'é', '😀', '\ud800', '\udfff', '\0'),
  }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
);

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

// Plain objects, as JSON.parse makes them (fast-check also makes null-prototype ones).
const plain = { noNullPrototype: true };

const message: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc.record(
    {
      jsonrpc: fc.constant('2.0' as const),
      id: fc.oneof(hostileString, fc.integer()),
      method: hostileString,
      params: fc.dictionary(hostileString, value, { maxKeys: 4, noNullPrototype: true }),
    },
    plain,
  ),
  fc.record({ jsonrpc: fc.constant('2.0' as const), method: hostileString }, plain),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id: fc.integer(), result: value }, plain),
  fc.record(
    {
      jsonrpc: fc.constant('2.0' as const),
      id: fc.oneof(hostileString, fc.constant(null)),
      error: fc.record({ code: fc.integer(), message: hostileString, data: value }, plain),
    },
    plain,
  ),
);

function assertOneLine(line: string): void {
  assert.equal(line.at(-1), '\n', 'ends with \\n');
  const body = line.slice(0, -1);
  for (const lineBreak of LINE_BREAKS) {
    assert.ok(!body.includes(lineBreak), `no raw U+${lineBreak.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  const bytes = Buffer.from(line, 'utf8');
  assert.equal(bytes.indexOf(0x0a), bytes.length - 1, 'the only 0x0a byte is the last one');
  assert.equal(body.split(/\r\n|[\n\r\u2028\u2029]/).length, 1);
}

describe('serialize', () => {
  test('a message becomes one compact line ending in \\n', () => {
    assert.equal(
      serialize({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}\n',
    );
  });

  test('line breaks inside strings are escaped, U+0085, U+2028 and U+2029 included', () => {
    const line = serialize({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { text: 'a\nb\r\nc\u2028d\u2029e\u0085f' },
    });
    assert.equal(
      line,
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"a\\nb\\r\\nc\\u2028d\\u2029e\\u0085f"}}\n',
    );
    assertOneLine(line);
  });

  test('a lone surrogate is escaped, so the line is valid UTF-8', () => {
    const line = serialize({ jsonrpc: '2.0', id: 'x', result: { text: 'a\ud800b' } });
    assert.ok(line.includes('a\\ud800b'));
    assert.deepEqual(JSON.parse(line), { jsonrpc: '2.0', id: 'x', result: { text: 'a\ud800b' } });
  });

  test('property: any message is exactly one line that parses back to the same message', () => {
    fc.assert(
      fc.property(message, (input) => {
        const line = serialize(input);
        assertOneLine(line);
        assert.deepEqual(JSON.parse(line), input);
      }),
      { numRuns: 1000 },
    );
  });

  test('an ASCII line, and lines whose only non-ASCII characters are the escaped line breaks, are one line', () => {
    for (const text of ['plain', 'a\u2028b', '\u0085', 'é\u2029😀', '\ud800']) {
      const line = serialize({ jsonrpc: '2.0', method: 'm', params: { text } });
      assertOneLine(line);
      assert.deepEqual(JSON.parse(line).params.text, text);
    }
  });

  test('a BigInt anywhere throws a TypeError that names it', () => {
    const input = { jsonrpc: '2.0', id: 1, method: 'x', params: { n: 10n } } as unknown as JsonRpcMessage;
    assert.throws(
      () => serialize(input),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^the message cannot be serialised as JSON: .*BigInt/);
        assert.ok(error.cause instanceof TypeError, 'the JSON error is the cause');
        return true;
      },
    );
  });

  test('a circular value throws a TypeError that names it', () => {
    const params: Record<string, unknown> = { name: 'loop' };
    params.self = params;
    assert.throws(
      () => serialize({ jsonrpc: '2.0', id: 1, method: 'x', params }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^the message cannot be serialised as JSON: .*circular/i);
        return true;
      },
    );
  });

  test('what does not serialise to a JSON object throws a TypeError', () => {
    for (const input of [
      undefined,
      null,
      'text',
      42,
      [{ jsonrpc: '2.0', method: 'x' }],
      { toJSON: () => 'x' },
    ]) {
      assert.throws(() => serialize(input as unknown as JsonRpcMessage), {
        name: 'TypeError',
        message: 'a JSON-RPC message must serialise to a JSON object',
      });
    }
  });
});
