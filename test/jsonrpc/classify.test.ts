import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type Classified, classify, isRequestId, parseMessage } from '../../src/jsonrpc/classify.js';

const KINDS = ['request', 'notification', 'response', 'error', 'invalid'];

type ValidKind = Exclude<Classified['kind'], 'invalid'>;

/** A valid message: the kind it must get. */
const VALID: Array<[name: string, message: unknown, kind: ValidKind]> = [
  ['request with a string id', { jsonrpc: '2.0', id: 'a-1', method: 'tools/list' }, 'request'],
  ['request with an empty string id', { jsonrpc: '2.0', id: '', method: 'tools/list' }, 'request'],
  ['request with id 0', { jsonrpc: '2.0', id: 0, method: 'ping' }, 'request'],
  ['request with a negative id', { jsonrpc: '2.0', id: -7, method: 'ping' }, 'request'],
  [
    'request with the largest safe integer id',
    { jsonrpc: '2.0', id: 2 ** 53 - 1, method: 'ping' },
    'request',
  ],
  ['request with params', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }, 'request'],
  ['request with empty params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, 'request'],
  ['request with an empty method', { jsonrpc: '2.0', id: 1, method: '' }, 'request'],
  ['notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, 'notification'],
  [
    'notification with params',
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 0.5 } },
    'notification',
  ],
  ['response with a string id', { jsonrpc: '2.0', id: 'a-1', result: { tools: [] } }, 'response'],
  ['response with an integer id', { jsonrpc: '2.0', id: 3, result: {} }, 'response'],
  ['response whose result is null', { jsonrpc: '2.0', id: 3, result: null }, 'response'],
  [
    'error response with an integer id',
    { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } },
    'error',
  ],
  [
    'error response with a string id and data',
    { jsonrpc: '2.0', id: 'x', error: { code: -32602, message: 'bad', data: { field: 'uri' } } },
    'error',
  ],
  [
    'error response with a null id',
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    'error',
  ],
  [
    'error response without an id',
    { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } },
    'error',
  ],
  [
    'error response with a positive application code',
    { jsonrpc: '2.0', id: 1, error: { code: 42, message: '' } },
    'error',
  ],
];

/** An invalid message: a pattern its reason must match (the problem, named). */
const INVALID: Array<[name: string, message: unknown, reason: RegExp]> = [
  ['an empty batch', [], /batch/],
  ['a batch of one request', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], /batch/],
  ['null', null, /JSON object.*got null/],
  ['a string', 'ping', /JSON object.*got string/],
  ['a number', 42, /JSON object.*got number/],
  ['a boolean', true, /JSON object.*got boolean/],
  ['undefined', undefined, /JSON object.*got undefined/],
  ['no jsonrpc', { id: 1, method: 'ping' }, /"jsonrpc" must be "2\.0"/],
  ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'ping' }, /"jsonrpc" must be "2\.0"/],
  ['jsonrpc as the number 2.0', { jsonrpc: 2.0, id: 1, method: 'ping' }, /"jsonrpc" must be "2\.0"/],
  ['a numeric method', { jsonrpc: '2.0', id: 1, method: 7 }, /"method" must be a string/],
  ['a null method', { jsonrpc: '2.0', method: null }, /"method" must be a string/],
  ['method and result', { jsonrpc: '2.0', id: 1, method: 'ping', result: {} }, /both "method" and "result"/],
  [
    'method and error',
    { jsonrpc: '2.0', id: 1, method: 'ping', error: { code: 1, message: 'x' } },
    /both "method" and "result"\/"error"/,
  ],
  ['array params', { jsonrpc: '2.0', id: 1, method: 'ping', params: [1, 2] }, /"params" must be an object/],
  ['string params', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }, /"params" must be an object/],
  ['null params', { jsonrpc: '2.0', id: 1, method: 'ping', params: null }, /"params" must be an object/],
  [
    'notification with array params',
    { jsonrpc: '2.0', method: 'x', params: [] },
    /"params" must be an object/,
  ],
  ['request with a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, /request "id" must be/],
  ['request with a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, /request "id" must be/],
  ['request with an object id', { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, /request "id" must be/],
  ['request with an array id', { jsonrpc: '2.0', id: [1], method: 'ping' }, /request "id" must be/],
  ['request with a boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }, /request "id" must be/],
  [
    'request with an unsafe integer id',
    { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' },
    /request "id" must be/,
  ],
  ['request with a NaN id', { jsonrpc: '2.0', id: Number.NaN, method: 'ping' }, /request "id" must be/],
  ['response without an id', { jsonrpc: '2.0', result: {} }, /response "id" must be/],
  ['response with a null id', { jsonrpc: '2.0', id: null, result: {} }, /response "id" must be/],
  ['response with a fractional id', { jsonrpc: '2.0', id: 0.5, result: {} }, /response "id" must be/],
  [
    'both result and error',
    { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
    /both "result" and "error"/,
  ],
  ['error that is a string', { jsonrpc: '2.0', id: 1, error: 'boom' }, /"error" must be an object/],
  ['error that is null', { jsonrpc: '2.0', id: 1, error: null }, /"error" must be an object/],
  ['error that is an array', { jsonrpc: '2.0', id: 1, error: [] }, /"error" must be an object/],
  [
    'error without a code',
    { jsonrpc: '2.0', id: 1, error: { message: 'x' } },
    /"error\.code" must be an integer/,
  ],
  [
    'error with a string code',
    { jsonrpc: '2.0', id: 1, error: { code: '-32600', message: 'x' } },
    /"error\.code" must be an integer/,
  ],
  [
    'error with a fractional code',
    { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
    /"error\.code" must be an integer/,
  ],
  [
    'error without a message',
    { jsonrpc: '2.0', id: 1, error: { code: 1 } },
    /"error\.message" must be a string/,
  ],
  [
    'error with a numeric message',
    { jsonrpc: '2.0', id: 1, error: { code: 1, message: 5 } },
    /"error\.message" must be a string/,
  ],
  [
    'error response with a fractional id',
    { jsonrpc: '2.0', id: 2.5, error: { code: 1, message: 'x' } },
    /error response "id" must be a string, an integer or null/,
  ],
  [
    'error response with an object id',
    { jsonrpc: '2.0', id: {}, error: { code: 1, message: 'x' } },
    /error response "id" must be/,
  ],
  ['only jsonrpc', { jsonrpc: '2.0' }, /neither a request, a notification nor a response/],
  ['only jsonrpc and an id', { jsonrpc: '2.0', id: 1 }, /no "method", "result" or "error"/],
];

describe('classify', () => {
  for (const [name, message, kind] of VALID) {
    test(`${name} classifies as '${kind}'`, () => {
      const classified = classify(message);
      assert.equal(classified.kind, kind);
      assert.ok('message' in classified);
      assert.equal(classified.message, message, 'the message is handed back as it came');
    });
  }

  for (const [name, message, reason] of INVALID) {
    test(`${name} is invalid`, () => {
      const classified = classify(message);
      assert.equal(classified.kind, 'invalid');
      assert.ok('reason' in classified);
      assert.match(classified.reason, reason);
    });
  }

  test('only own properties count, not inherited ones', () => {
    const inheritsId = Object.assign(Object.create({ id: 1 }) as object, { jsonrpc: '2.0', method: 'x' });
    assert.equal(classify(inheritsId).kind, 'notification');
    const inheritsMethod = Object.assign(Object.create({ method: 'x' }) as object, {
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    assert.equal(classify(inheritsMethod).kind, 'response');
  });
});

describe('isRequestId', () => {
  test('accepts strings and safe integers only', () => {
    for (const id of ['', 'a', 0, -1, 2 ** 53 - 1, -(2 ** 53 - 1)])
      assert.equal(isRequestId(id), true, `${id}`);
    for (const id of [
      null,
      undefined,
      1.5,
      2 ** 53,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      {},
      [],
      true,
      1n,
    ]) {
      assert.equal(isRequestId(id), false, String(id));
    }
  });
});

describe('parseMessage', () => {
  const cases: Array<[name: string, line: string, kind: Classified['kind'], reason?: RegExp]> = [
    ['a request', '{"jsonrpc":"2.0","id":1,"method":"ping"}', 'request'],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}', 'notification'],
    ['a response', '{"jsonrpc":"2.0","id":"a","result":{}}', 'response'],
    ['an error response', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', 'error'],
    ['an id written 1.0 (an integer in JSON)', '{"jsonrpc":"2.0","id":1.0,"method":"ping"}', 'request'],
    ['an id written 1e2', '{"jsonrpc":"2.0","id":1e2,"method":"ping"}', 'request'],
    ['a line ending in \\r (CRLF output)', '{"jsonrpc":"2.0","method":"x"}\r', 'notification'],
    ['surrounding spaces', '  {"jsonrpc":"2.0","method":"x"}  ', 'notification'],
    [
      'a "__proto__" key, which is data, not an id',
      '{"jsonrpc":"2.0","method":"x","__proto__":{"id":1}}',
      'notification',
    ],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 'invalid', /"id"/],
    ['a plain response', '{"jsonrpc":"2.0","id":12,"result":{"content":[]}}', 'response'],
    ['a plain response with id 0', '{"jsonrpc":"2.0","id":0,"result":null}', 'response'],
    ['an id with a leading zero (not JSON)', '{"jsonrpc":"2.0","id":01,"result":{}}', 'invalid', /^not JSON/],
    [
      'an id past the safe integers',
      '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
      'invalid',
      /"id"/,
    ],
    [
      'a result and an error',
      '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}',
      'invalid',
      /both/,
    ],
    ['text after the response', '{"jsonrpc":"2.0","id":1,"result":{}}x', 'invalid', /^not JSON/],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 'invalid', /batch/],
    ['null', 'null', 'invalid', /got null/],
    ['a JSON string', '"hello"', 'invalid', /got string/],
    ['an empty line', '', 'invalid', /^not JSON \(.+\)$/],
    ['a log line', 'Server listening on stdio', 'invalid', /^not JSON \(.+\)$/],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,', 'invalid', /^not JSON \(.+\)$/],
  ];
  for (const [name, line, kind, reason] of cases) {
    test(`${name}: ${kind}`, () => {
      const classified = parseMessage(line);
      assert.equal(classified.kind, kind);
      if (reason) {
        assert.ok('reason' in classified);
        assert.match(classified.reason, reason);
      }
    });
  }
});

// Arbitraries for valid messages.
const requestId = fc.oneof(fc.string(), fc.maxSafeInteger(), fc.integer({ min: -1000, max: 1000 }));
const params = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 });
const method = fc.string({ unit: 'binary' });

const request = fc.record(
  { jsonrpc: fc.constant('2.0'), id: requestId, method, params },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);
const notification = fc.record(
  { jsonrpc: fc.constant('2.0'), method, params },
  { requiredKeys: ['jsonrpc', 'method'] },
);
const response = fc.record({ jsonrpc: fc.constant('2.0'), id: requestId, result: fc.jsonValue() });
const errorObject = fc.record(
  { code: fc.integer(), message: fc.string(), data: fc.jsonValue() },
  { requiredKeys: ['code', 'message'] },
);
const errorResponse = fc.record(
  { jsonrpc: fc.constant('2.0'), id: fc.oneof(requestId, fc.constant(null)), error: errorObject },
  { requiredKeys: ['jsonrpc', 'error'] },
);

// Messages with the keys of a near-valid shape (or any set of the envelope's keys), each value
// right or wrong, to reach every branch.
const anyField = fc.jsonValue({ maxDepth: 2 });
const wrongId = fc.constantFrom(null, 1.5, -0.5, 2 ** 53, true, {}, [], '');
const mostly = <T>(right: fc.Arbitrary<T>, ...wrong: fc.Arbitrary<unknown>[]) =>
  fc.oneof(
    { weight: 2 * wrong.length, arbitrary: right },
    ...wrong.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
const nearError = fc.record(
  {
    code: fc.oneof(fc.integer(), fc.double(), anyField),
    message: fc.oneof(fc.string(), anyField),
    data: anyField,
  },
  { requiredKeys: [] },
);
const ENVELOPE_KEYS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const;
const SHAPES: Array<Array<(typeof ENVELOPE_KEYS)[number]>> = [
  ['jsonrpc', 'id', 'method'],
  ['jsonrpc', 'id', 'method', 'params'],
  ['jsonrpc', 'method'],
  ['jsonrpc', 'method', 'params'],
  ['jsonrpc', 'id', 'result'],
  ['jsonrpc', 'id', 'error'],
  ['jsonrpc', 'error'],
];
const messageLike = fc
  .tuple(
    fc.record({
      jsonrpc: mostly(fc.constant('2.0'), anyField),
      id: mostly(requestId, wrongId, anyField),
      method: mostly(method, anyField),
      params: mostly(params, anyField),
      result: anyField,
      error: mostly(errorObject, nearError, anyField),
    }),
    fc.oneof(fc.constantFrom(...SHAPES), fc.subarray([...ENVELOPE_KEYS])),
  )
  .map(([all, keys]) => Object.fromEntries(keys.map((key) => [key, all[key]])));

const own = (value: object, key: string) => Object.hasOwn(value, key);
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An independent statement of what each kind guarantees about its message. */
function assertShape(classified: Classified): void {
  assert.ok(KINDS.includes(classified.kind), classified.kind);
  if (classified.kind === 'invalid') {
    assert.equal(typeof classified.reason, 'string');
    assert.ok(classified.reason.length > 0);
    return;
  }
  const message = classified.message as unknown as Record<string, unknown>;
  assert.equal(message.jsonrpc, '2.0');
  const paramsOk = !own(message, 'params') || isObject(message.params);
  switch (classified.kind) {
    case 'request':
      assert.ok(typeof message.method === 'string' && isRequestId(message.id) && paramsOk);
      assert.ok(!own(message, 'result') && !own(message, 'error'));
      break;
    case 'notification':
      assert.ok(typeof message.method === 'string' && !own(message, 'id') && paramsOk);
      assert.ok(!own(message, 'result') && !own(message, 'error'));
      break;
    case 'response':
      assert.ok(!own(message, 'method') && !own(message, 'error') && isRequestId(message.id));
      break;
    case 'error': {
      assert.ok(!own(message, 'method') && !own(message, 'result'));
      assert.ok(!own(message, 'id') || message.id === null || isRequestId(message.id));
      const error = message.error as Record<string, unknown>;
      assert.ok(isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string');
      break;
    }
  }
}

describe('classify properties', () => {
  const kinds: Array<[name: string, ValidKind, fc.Arbitrary<object>]> = [
    ['request', 'request', request],
    ['notification', 'notification', notification],
    ['success response', 'response', response],
    ['error response', 'error', errorResponse],
  ];
  for (const [name, kind, arbitrary] of kinds) {
    test(`an arbitrary valid ${name} classifies as '${kind}', as a value and as a parsed line`, () => {
      fc.assert(
        fc.property(arbitrary, (message) => {
          assert.equal(classify(message).kind, kind);
          assert.equal(parseMessage(JSON.stringify(message)).kind, kind);
        }),
        { numRuns: 300 },
      );
    });
  }

  test('an arbitrary JSON value never throws and gets one of the five kinds, with the shape it promises', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), messageLike), (value) => {
        assertShape(classify(value));
      }),
      { numRuns: 5000 },
    );
  });

  test('a message-like object reaches every kind', () => {
    const seen = new Set(
      fc.sample(messageLike, { numRuns: 3000, seed: 42 }).map((value) => classify(value).kind),
    );
    assert.deepEqual([...seen].sort(), [...KINDS].sort());
  });

  test('property: a line shaped like a plain response, or nearly, classifies exactly as JSON.parse and classify do', () => {
    const fullPath = (line: string): Classified => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        return { kind: 'invalid', reason: `not JSON (${(error as Error).message})` };
      }
      return classify(value);
    };
    const idText = fc.oneof(
      fc.integer().map(String),
      fc.constantFrom(
        '0',
        '-0',
        '00',
        '01',
        '-',
        '',
        '1.5',
        '1e2',
        '9007199254740991',
        '9007199254740993',
        '"7"',
        ' 1',
      ),
      fc.stringMatching(/^-?[0-9]{0,20}$/),
    );
    const valueText = fc.oneof(
      fc.json(),
      fc.jsonValue().map((value) => ` ${JSON.stringify(value, null, 1)} `),
      fc.constantFrom(
        '',
        '{}',
        '1,"error":{"code":1,"message":"x"}',
        '{}, "x":1',
        '{"a":1',
        'nul',
        '{}}',
        '{"__proto__":{"id":1}}',
      ),
      fc.string(),
    );
    const suffix = fc.constantFrom('}', '}', '}', '} ', '}}', '', ',"method":"m"}');
    fc.assert(
      fc.property(idText, valueText, suffix, (id, value, end) => {
        const line = `{"jsonrpc":"2.0","id":${id},"result":${value}${end}`;
        const got = parseMessage(line);
        assert.deepStrictEqual(got, fullPath(line), line);
        assert.equal(JSON.stringify(got), JSON.stringify(fullPath(line)), 'the same keys in the same order');
      }),
      { numRuns: 5000 },
    );
  });

  test('parseMessage never throws on an arbitrary string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json(), fc.string()), (line) => {
        assertShape(parseMessage(line));
      }),
      { numRuns: 2000 },
    );
  });
});
