// The standalone modules the pool will build on: hidden-character detection, the canonical tool
// fingerprint, and the BM25 tool search index (over the published servers' real tools).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  buildToolIndex,
  canonicalJson,
  findHiddenCharacters,
  findHiddenInTool,
  tokenize,
  toolFingerprint,
} from '../../src/llm/index.js';
import { publishedPool } from './corpus.js';

test('hidden characters: zero-width, bidi overrides, tag characters (with what they spell), controls', () => {
  assert.deepEqual(findHiddenCharacters('Reads a file.\nTabs\tare fine.'), []);
  const tags = [...'ignore previous']
    .map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0)))
    .join('');
  const found = findHiddenCharacters(`Reads\u200b a file\u202e.txt${tags} \u001b[31m`);
  assert.deepEqual(
    found.map((each) => [each.kind, each.codePoints[0]]),
    [
      ['zero-width', 'U+200B'],
      ['bidi', 'U+202E'],
      ['tag', 'U+E0069'],
      ['control', 'U+001B'],
    ],
  );
  assert.equal(found[2]!.spells, 'ignore previous');
  assert.equal(found[0]!.index, 5);
  const inTool = findHiddenInTool({
    name: 'read',
    description: 'ok',
    inputSchema: { properties: { path: { description: `a path\u2066` } } },
  });
  assert.deepEqual(
    inTool.map((each) => each.field),
    ['inputSchema/properties/path/description'],
  );
});

test('fingerprint: stable under key order, changed by any covered field, blind to the rest', () => {
  const tool = {
    name: 'read',
    description: 'Reads',
    inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  };
  const reordered = {
    annotations: { readOnlyHint: true },
    inputSchema: { properties: { a: { type: 'string' } }, type: 'object' },
    description: 'Reads',
    name: 'read',
  };
  assert.equal(toolFingerprint(tool), toolFingerprint(reordered));
  assert.match(toolFingerprint(tool), /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(toolFingerprint(tool), toolFingerprint({ ...tool, description: 'Reads\u200b' }));
  assert.notEqual(toolFingerprint(tool), toolFingerprint({ ...tool, annotations: { readOnlyHint: false } }));
  assert.equal(toolFingerprint(tool), toolFingerprint({ ...tool, _meta: { seen: 1 }, icons: [] }));
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.deepEqual(JSON.parse(canonicalJson(value)), JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 200, seed: 39 },
  );
});

test('search: BM25 over name, title, description and parameter names of real tools ranks the fitting tool first', async () => {
  assert.deepEqual(tokenize('read_multipleFiles2 HTTPServer'), [
    'read',
    'multiple',
    'files',
    '2',
    'http',
    'server',
  ]);
  await using pool = publishedPool();
  await pool.connect();
  const { tools } = await pool.listTools();
  const index = buildToolIndex(tools);
  assert.equal(index.size, tools.length);
  assert.equal(index.search('echo a message')[0]?.name, 'everything__echo');
  const adding = index.search('add two numbers sum', { limit: 2 }).map((match) => match.name);
  assert.deepEqual(adding.sort(), ['demo__add', 'everything__get-sum']);
  assert.equal(index.search('create directory')[0]?.name, 'filesystem__create_directory');
  assert.equal(index.search('knowledge graph entities relations', { limit: 3 }).length, 3);
  assert.ok(
    index.search('entit').some((match) => match.name === 'memory__create_entities'),
    'a prefix finds the longer word',
  );
  assert.deepEqual(index.search('zzzz unrelated'), []);
  assert.throws(() => index.search('x', { limit: 0 }), /limit must be a positive integer/);
});

test('search over 10,000 tools answers (bounded generously here; the bench measures it)', () => {
  const words = [
    'file',
    'read',
    'write',
    'issue',
    'github',
    'query',
    'database',
    'image',
    'search',
    'user',
    'list',
    'create',
  ];
  const tools = Array.from({ length: 10_000 }, (_, index) => ({
    name: `server${index % 50}__${words[index % 12]}_${words[(index * 7) % 12]}_${index}`,
    description: `Tool ${index}: ${words[(index * 5) % 12]} the ${words[(index * 3) % 12]} records`,
    inputSchema: { properties: { [words[index % 12]!]: {}, limit: {} } },
  }));
  const index = buildToolIndex(tools);
  const started = performance.now();
  for (let round = 0; round < 20; round++) assert.ok(index.search('read github issue').length > 0);
  assert.ok(performance.now() - started < 20_000);
});
