// The property of the schema rewrites, over a corpus: every tool of the published servers in the
// dev dependencies (started for real), the spec's examples, and generated schemas. For each
// provider, every output passes that provider's checker, and every value valid under the original
// schema, sent as the model would under the rewrite and mapped back, is valid under the original.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type ClientPool, checkSchema, type Tool } from '../../src/index.js';
import {
  checkGemini,
  checkJsonSchemaObject,
  checkOpenAIStrict,
  convertTool,
  PROVIDERS,
  type Provider,
  restoreArguments,
} from '../../src/llm/index.js';
import { inlineRefs } from '../../src/llm/schema/inline-refs.js';
import { publishedPool, specExampleTools } from './corpus.js';
import { asStrictArguments, geminiAsJsonSchema, generatedInputSchemas, valuesOf } from './instances.js';

let pool: ClientPool;
let corpus: Tool[];
before(async () => {
  pool = publishedPool();
  await pool.connect();
  corpus = [...(await pool.listTools()).tools, ...specExampleTools()];
});
after(() => pool.close());

/** Checks one tool for one provider with `values` (valid under the original); the count of values checked. */
async function holds(
  provider: Provider,
  tool: Tool,
  values: readonly unknown[],
): Promise<{ converted: boolean; checked: number }> {
  const converted = convertTool(provider, tool);
  if ('error' in converted) {
    assert.ok(converted.error.length > 0);
    return { converted: false, checked: 0 };
  }
  const { parameters, strict } = converted;
  if (provider === 'gemini')
    assert.deepEqual(checkGemini(parameters), [], `${tool.name}: ${JSON.stringify(parameters)}`);
  else if (strict)
    assert.deepEqual(checkOpenAIStrict(parameters), [], `${tool.name}: ${JSON.stringify(parameters)}`);
  else assert.deepEqual(checkJsonSchemaObject(parameters), [], `${tool.name}: ${JSON.stringify(parameters)}`);
  const inlined = inlineRefs(tool.inputSchema as Record<string, unknown>);
  assert.ok('schema' in inlined);
  let checked = 0;
  for (const value of values) {
    if ((await checkSchema(tool.inputSchema, value)).valid !== true) continue;
    checked++;
    const sent = strict ? asStrictArguments(parameters, value) : value;
    const rewritten =
      provider === 'gemini' ? (geminiAsJsonSchema(parameters ?? { type: 'OBJECT' }) as object) : parameters;
    const underRewrite = await checkSchema(rewritten, sent);
    assert.equal(
      underRewrite.valid,
      true,
      `${provider} ${tool.name}: ${JSON.stringify(sent)} refused by ${JSON.stringify(rewritten)}: ${JSON.stringify(underRewrite)}`,
    );
    const restored = restoreArguments(inlined.schema, sent);
    const underOriginal = await checkSchema(tool.inputSchema, restored);
    assert.equal(
      underOriginal.valid,
      true,
      `${provider} ${tool.name}: ${JSON.stringify(restored)} (sent ${JSON.stringify(sent)})`,
    );
  }
  return { converted: true, checked };
}

test('the published servers and the spec examples: every provider output passes its checker and round-trips values', async () => {
  assert.ok(corpus.length >= 40, `${corpus.length} tools`);
  let checked = 0;
  let offered = 0;
  for (const tool of corpus) {
    const inlined = inlineRefs(tool.inputSchema as Record<string, unknown>);
    const values = 'schema' in inlined ? fc.sample(valuesOf(inlined.schema), { numRuns: 25, seed: 39 }) : [];
    for (const provider of PROVIDERS) {
      const result = await holds(provider, tool, values);
      checked += result.checked;
      if (result.converted) offered++;
    }
  }
  assert.ok(
    offered >= corpus.length * PROVIDERS.length * 0.9,
    `${offered} of ${corpus.length * PROVIDERS.length} offered`,
  );
  assert.ok(checked > corpus.length * 10, `${checked} values checked`);
});

test('generated schemas: every provider output passes its checker and round-trips values', async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      generatedInputSchemas.chain((schema) => {
        const inlined = inlineRefs(schema);
        return fc.tuple(
          fc.constant(schema),
          fc.array('schema' in inlined ? valuesOf(inlined.schema) : fc.constant({}), {
            minLength: 5,
            maxLength: 5,
          }),
        );
      }),
      async ([schema, values]) => {
        const tool: Tool = { name: 'generated', inputSchema: schema as Tool['inputSchema'] };
        for (const provider of PROVIDERS) checked += (await holds(provider, tool, values)).checked;
      },
    ),
    { numRuns: 150, seed: 39 },
  );
  assert.ok(checked > 150, `${checked} values checked`);
});
