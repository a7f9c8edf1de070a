import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JsonRpcMessage } from '../../src/jsonrpc/messages.js';
import { prepareMeta, serialize, serializeLine } from '../../src/jsonrpc/serialize.js';

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

  test('property: serializeLine gives the same line and its exact length in UTF-8 bytes', () => {
    fc.assert(
      fc.property(message, (input) => {
        const line = serializeLine(input);
        assert.equal(line.text, serialize(input));
        assert.equal(line.bytes, Buffer.byteLength(line.text));
      }),
      { numRuns: 1000 },
    );
  });

  test('property: a request or notification as Connection builds it is the very text JSON.stringify gives, with or without a prepared _meta', () => {
    const escapeBreaks = (text: string) =>
      text.replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const noMeta = fc
      .dictionary(hostileString, value, { maxKeys: 4, noNullPrototype: true })
      .filter((params) => !Object.hasOwn(params, '_meta'));
    const shaped = fc
      .tuple(
        fc.option(fc.oneof(hostileString, fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER))),
        hostileString,
        fc.option(noMeta),
      )
      .map(([id, method, params]) => {
        const message: Record<string, unknown> = { jsonrpc: '2.0' };
        if (id !== null) message.id = id;
        message.method = method;
        if (params !== null) message.params = params;
        return message as unknown as JsonRpcMessage;
      });
    const meta = prepareMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'na\u2028mé', version: '1' } });
    fc.assert(
      fc.property(shaped, fc.boolean(), (input, withMeta) => {
        const params = (input as { params?: object }).params;
        const expected = withMeta ? { ...input, params: { ...params, _meta: meta.value } } : input;
        const line = serializeLine(input, withMeta ? meta : undefined);
        assert.equal(line.text, `${escapeBreaks(JSON.stringify(expected))}\n`);
        assert.equal(line.bytes, Buffer.byteLength(line.text));
      }),
      { numRuns: 2000 },
    );
  });

  test('an ASCII line, and lines whose only non-ASCII characters are the escaped line breaks, count their bytes', () => {
    for (const text of ['plain', 'a\u2028b', '\u0085', 'é\u2029😀', '\ud800']) {
      const line = serializeLine({ jsonrpc: '2.0', method: 'm', params: { text } });
      assert.equal(line.bytes, Buffer.byteLength(line.text), JSON.stringify(text));
      assertOneLine(line.text);
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

  describe('a prepared _meta', () => {
    const ours = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      'io.modelcontextprotocol/clientInfo': { name: 'client\u2028name', version: '1.0.0' },
    };
    const request = (params?: Record<string, unknown>): JsonRpcMessage =>
      params === undefined
        ? { jsonrpc: '2.0', id: 7, method: 'tools/call' }
        : { jsonrpc: '2.0', id: 7, method: 'tools/call', params };
    /** What the line must hold: the params with our _meta merged over theirs. */
    const expected = (params?: Record<string, unknown>) => ({
      ...request(params),
      params: { ...params, _meta: { ...(params?._meta as object | undefined), ...ours } },
    });

    test('is added as the params _meta: no params, empty params, params, params with a _meta of their own', () => {
      const meta = prepareMeta(ours);
      for (const params of [
        undefined,
        {},
        { name: 'echo', arguments: { text: 'hi "there"\n}}' } },
        { params: {} },
        { name: 'echo', _meta: { progressToken: 3, 'io.modelcontextprotocol/protocolVersion': 'theirs' } },
      ]) {
        const line = serialize(request(params), meta);
        assert.ok(line.endsWith('}\n') && line.indexOf('\n') === line.length - 1, 'one line');
        assert.deepStrictEqual(JSON.parse(line), expected(params));
        assert.ok(line.includes('client\\u2028name'), 'the line break in the meta is escaped');
      }
    });

    test('leaves the caller params untouched and cannot be changed itself', () => {
      const meta = prepareMeta(ours);
      const params = { name: 'echo', _meta: { progressToken: 1 } };
      serialize(request(params), meta);
      assert.deepStrictEqual(params, { name: 'echo', _meta: { progressToken: 1 } });
      assert.deepStrictEqual(meta.value, ours);
      assert.throws(() => {
        (meta.value as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] = 'x';
      }, TypeError);
    });

    test('property: any request with a prepared _meta is one line that parses to the merged message', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), value), (params) => {
          const line = serialize(request(params), prepareMeta(ours));
          assert.equal(line.indexOf('\n'), line.length - 1);
          assert.deepStrictEqual(JSON.parse(line), JSON.parse(JSON.stringify(expected(params))));
        }),
      );
    });

    test('property: the byte count of a spliced line is exact, with or without params, a _meta of their own or hostile text', () => {
      const meta = prepareMeta(ours);
      const params = fc.oneof(
        fc.constant(undefined),
        fc.constant({}),
        fc.dictionary(hostileString, value, { maxKeys: 4, noNullPrototype: true }),
        fc.record({ _meta: fc.dictionary(hostileString, value, { maxKeys: 2, noNullPrototype: true }) }),
      );
      fc.assert(
        fc.property(params, (given) => {
          const line = serializeLine(request(given), meta);
          assert.equal(line.bytes, Buffer.byteLength(line.text));
          assertOneLine(line.text);
        }),
        { numRuns: 1000 },
      );
    });
  });
});
