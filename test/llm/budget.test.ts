// The result budget on its own: cuts on character boundaries within the budget, keeps the head
// and the tail, names where the whole result went, and never throws when the spill fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { applyBudget, budgetBytes, cutMiddle } from '../../src/llm/budget.js';

test('cutMiddle: within the budget, on character boundaries, head and tail of the original kept', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', minLength: 0, maxLength: 3000 }),
      fc.integer({ min: 250, max: 4000 }),
      (text, maxBytes) => {
        const total = Buffer.byteLength(text);
        const cut = cutMiddle(text, maxBytes, total, 'the whole result is saved at /tmp/x');
        assert.ok(Buffer.byteLength(cut) <= maxBytes, `${Buffer.byteLength(cut)} > ${maxBytes}`);
        assert.ok(!cut.includes('\ufffd') || text.includes('\ufffd'), 'a character was split');
        const at = cut.indexOf('\n[... ');
        assert.ok(at >= 0);
        assert.ok(text.startsWith(cut.slice(0, at)));
        const end = cut.indexOf(' ...]\n', at);
        if (end >= 0) assert.ok(text.endsWith(cut.slice(end + ' ...]\n'.length)));
      },
    ),
    { numRuns: 300, seed: 39 },
  );
});

test('a failing spill is named in the marker instead of thrown; a result within the budget is untouched', async () => {
  const parts = [{ type: 'text' as const, text: 'x'.repeat(5000) }];
  const cut = await applyBudget(
    parts,
    1000,
    { toolName: 't', callId: '' },
    {
      spill: async () => {
        throw new Error('disk full');
      },
    },
  );
  assert.match(
    cut[0]!.type === 'text' ? cut[0]!.text : '',
    /the whole result could not be saved \(disk full\); call the tool again with narrower arguments/,
  );
  assert.deepEqual(await applyBudget(parts, 5000, { toolName: 't', callId: '' }, {}), parts);
  assert.throws(() => budgetBytes({ maxResultBytes: 0 }), /maxResultBytes must be a positive integer, got 0/);
  assert.equal(budgetBytes({ maxResultTokens: 100, maxResultBytes: 10 }), 400);
  assert.equal(budgetBytes({}), 65_536);
});
