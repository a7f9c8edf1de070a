// The pure rules of the HTTP headers: value encoding (spec examples), x-mcp-header validation,
// Mcp-Param-* mirroring and the routing headers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkToolHeaders } from '../../../src/protocol/tool-headers.js';
import { encodeHeaderValue, modernHeaders, paramHeaders } from '../../../src/transport/http/headers.js';

describe('encodeHeaderValue', () => {
  const cases: Array<[string, string]> = [
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['', ''],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['\tindented', `=?base64?${Buffer.from('\tindented').toString('base64')}?=`],
    ['=?base64?abc?=', `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`],
    ['file:///path/to/file%20name.txt', 'file:///path/to/file%20name.txt'],
    ['https://example.com/resource?id=123', 'https://example.com/resource?id=123'],
  ];
  for (const [value, expected] of cases) {
    test(JSON.stringify(value), () => assert.equal(encodeHeaderValue(value), expected));
  }

  test('never lets CR, LF, NUL or a non-ASCII character into a header, and round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const encoded = encodeHeaderValue(value);
        assert.match(encoded, /^[\x20-\x7e]*$/);
        const sentinel = /^=\?base64\?(.*)\?=$/.exec(encoded);
        const decoded = sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : encoded;
        assert.equal(decoded, Buffer.from(value, 'utf8').toString('utf8'));
      }),
    );
  });
});

describe('checkToolHeaders', () => {
  const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

  test('collects annotations on string, integer and boolean properties, nested through properties', () => {
    const check = checkToolHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        retries: { type: 'integer', 'x-mcp-header': 'Retries' },
        options: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
        query: { type: 'string' },
      }),
    );
    assert.deepEqual(check, {
      ok: true,
      bindings: [
        { header: 'Region', path: ['region'] },
        { header: 'Retries', path: ['retries'] },
        { header: 'Dry-Run', path: ['options', 'dry'] },
      ],
    });
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['empty', { a: { type: 'string', 'x-mcp-header': '' } }, /non-empty/],
    ['space', { a: { type: 'string', 'x-mcp-header': 'My Header' } }, /not a valid header name/],
    ['colon', { a: { type: 'string', 'x-mcp-header': 'A:B' } }, /not a valid header name/],
    ['non-ASCII', { a: { type: 'string', 'x-mcp-header': 'Région' } }, /not a valid header name/],
    ['tab', { a: { type: 'string', 'x-mcp-header': 'A\tB' } }, /not a valid header name/],
    ['object', { a: { type: 'object', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['array', { a: { type: 'array', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['null', { a: { type: 'null', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['number', { a: { type: 'number', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    [
      'duplicate ignoring case',
      { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } },
      /used twice/,
    ],
    [
      'under items',
      { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
      /not reached through properties/,
    ],
    [
      'under oneOf',
      { a: { oneOf: [{ type: 'string', 'x-mcp-header': 'One' }] } },
      /not reached through properties/,
    ],
  ];
  for (const [name, properties, reason] of invalid) {
    test(`rejects ${name}`, () => {
      const check = checkToolHeaders(schema(properties));
      assert.equal(check.ok, false);
      assert.match((check as { reason: string }).reason, reason);
    });
  }
});

describe('paramHeaders and modernHeaders', () => {
  test('mirrors present values, encoded; omits null and absent ones; never the unannotated', () => {
    const bindings = [
      { header: 'Region', path: ['region'] },
      { header: 'Priority', path: ['priority'] },
      { header: 'Verbose', path: ['verbose'] },
      { header: 'Empty', path: ['empty'] },
      { header: 'Method', path: ['method'] },
      { header: 'Missing', path: ['missing'] },
      { header: 'Deep', path: ['o', 'p'] },
    ];
    const headers = paramHeaders(bindings, {
      region: ' us ',
      priority: 42,
      verbose: null,
      empty: '',
      method: 'x',
      o: { p: false },
      query: 'SELECT 1',
    });
    assert.deepEqual(headers, {
      'mcp-param-region': '=?base64?IHVzIA==?=',
      'mcp-param-priority': '42',
      'mcp-param-empty': '',
      'mcp-param-method': 'x',
      'mcp-param-deep': 'false',
    });
  });

  test('Mcp-Name only on tools/call, prompts/get, resources/read and the task requests', () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      assert.equal(modernHeaders({ method, params: { taskId: 't-1' } }, 'v')['mcp-name'], 't-1');
    }
    assert.deepEqual(modernHeaders({ method: 'tools/call', params: { name: 'my-tool' } }, '2026-07-28'), {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'my-tool',
    });
    assert.equal(
      modernHeaders({ method: 'resources/read', params: { uri: 'file:///a b' } }, 'v')['mcp-name'],
      'file:///a b',
    );
    assert.equal(modernHeaders({ method: 'tools/list', params: { name: 'x' } }, 'v')['mcp-name'], undefined);
  });
});
