// The modern era's `_meta` goes into every request's params, merged over the caller's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { withMeta } from '../../src/client/eras/modern.js';
import { serialize } from '../../src/jsonrpc/serialize.js';

const ours = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'client\u2028name', version: '1.0.0' },
};

test('the era _meta is added to no params, empty params, params, and merged over a _meta of their own', () => {
  for (const params of [
    undefined,
    {},
    { name: 'echo', arguments: { text: 'hi "there"\n}}' } },
    { name: 'echo', _meta: { progressToken: 3, 'io.modelcontextprotocol/protocolVersion': 'theirs' } },
  ]) {
    const merged = withMeta(params, ours);
    const own = params?._meta as object | undefined;
    assert.deepStrictEqual(merged, { ...params, _meta: { ...own, ...ours } });
    const line = serialize({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: merged });
    assert.equal(line.indexOf('\n'), line.length - 1, 'one line');
    assert.ok(line.includes('client\\u2028name'), 'the line break in the meta is escaped');
  }
});

test('the caller params are left as they were', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { noNullPrototype: true }), (params) => {
      const before = structuredClone(params);
      const merged = withMeta(params, ours);
      assert.deepStrictEqual(params, before);
      assert.deepStrictEqual(merged._meta, { ...(params._meta as object | undefined), ...ours });
    }),
  );
});
