import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSchema } from '../../src/protocol/json-schema.js';

test('2020-12 by default: every error, with the failing location and keyword', async () => {
  const schema = {
    type: 'object',
    properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }] }, p: { $ref: '#/$defs/P' } },
    required: ['n'],
    $defs: { P: { type: 'object', required: ['x'] } },
  };
  assert.deepEqual(await checkSchema(schema, { n: null, p: { x: 1 } }), { valid: true });
  const check = await checkSchema(schema, { p: {} });
  assert.equal(check.valid, false);
  const errors = check.valid === false ? check.errors : [];
  assert.ok(errors.some((error) => error.location === '#' && error.keyword === 'required'));
  assert.ok(errors.some((error) => error.location === '#/p' && error.keyword === 'required'));
});

test('a draft named by $schema is used (draft-07 exclusiveMaximum as a number)', async () => {
  const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'number', exclusiveMaximum: 5 };
  assert.equal((await checkSchema(schema, 5)).valid, false);
  assert.equal((await checkSchema(schema, 4)).valid, true);
});

test('a $ref outside the schema is never fetched: the schema is reported as unusable', async () => {
  const check = await checkSchema(
    { properties: { a: { $ref: 'https://schemas.invalid/a.json' } } },
    { a: 1 },
  );
  assert.equal(check.valid, 'unknown');
  assert.match(
    check.valid === 'unknown' ? check.reason : '',
    /Unresolved \$ref "https:\/\/schemas\.invalid\/a\.json"/,
  );
});
