// The examples harness fails a broken example, naming its page and line: a ts block that throws,
// one with a type error, one that prints nothing, one that runs too long, an sh line that exits
// 1, a wrong exit= option; and passes the working ones, options, stdin and placeholders included.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildOnce } from '../helpers/cli.js';
import { extractBlocks, parseOptions } from './extract.js';
import { ExampleProject } from './harness.js';

buildOnce();

const PAGE = [
  '# A page', //                                                           1
  '',
  '```ts',
  "import { Client } from 'conduit-mcp';", //                            4
  "console.log(typeof Client, process.env.MCP_SERVER_URL ?? 'unset');",
  '```',
  '',
  '```ts', //                                                              8
  "throw new Error('this example is broken');",
  '```',
  '',
  '```ts', //                                                             12
  "const count: number = 'three';",
  'console.log(count);',
  '```',
  '',
  '```sh', //                                                             17
  '# a comment, then an install line that is not run',
  'npm install conduit-mcp',
  'conduit-mcp --version',
  'node -e "process.exit(1)"', //                                        21
  '```',
  '',
  '<!-- example: exit=3 -->',
  '```sh', //                                                             25
  'node -e "process.exit(3)"',
  '```',
  '',
  '<!-- example: exit=3 -->',
  '```sh', //                                                             30
  'node -e "process.exit(0)"',
  '```',
  '',
  '<!-- example: stdin="hello\\n" -->',
  '```sh', //                                                             35
  'node -e "process.stdin.pipe(process.stdout)"',
  '```',
  '',
  '```text', //                                                           39
  'output, not run',
  '```',
  '',
  '```ts', //                                                             43
  'const quiet = 1 + 1;',
  'void quiet;',
  '```',
  '',
  '<!-- example: timeout=500 -->',
  '```ts', //                                                             49
  'setTimeout(() => console.log("late"), 5000);',
  '```',
  '',
  '```', //                                                               53
  'no language',
  '```',
  '',
  '<!-- example: retries=2 -->',
  '```sh', //                                                             58
  'true',
  '```',
].join('\n');

describe('the examples harness', () => {
  const blocks = extractBlocks(PAGE, 'docs/broken.md');
  let project: ExampleProject;
  before(async () => {
    project = await ExampleProject.create(blocks, { env: { MCP_SERVER_URL: 'http://127.0.0.1:9/mcp' } });
  });
  after(() => project?.close());

  const at = (line: number) => {
    const block = blocks.find((candidate) => candidate.line === line);
    assert.ok(block, `no block at line ${line}`);
    return project.check(block);
  };

  test('finds every fence with its line, language and options', () => {
    assert.deepEqual(
      blocks.map((block) => `${block.line} ${block.lang}`),
      [
        '3 ts',
        '8 ts',
        '12 ts',
        '17 sh',
        '25 sh',
        '30 sh',
        '35 sh',
        '39 text',
        '43 ts',
        '49 ts',
        '53 ',
        '58 sh',
      ],
    );
    assert.equal(blocks[4]!.options.exit, 3);
    assert.equal(blocks[6]!.options.stdin, 'hello\n');
    assert.equal(blocks[9]!.options.timeout, 500);
    assert.match(blocks[11]!.optionError ?? '', /unknown example option or bad value: retries=2/);
    assert.throws(() => parseOptions('exit=x'), /exit=x/);
  });

  test('a working ts block passes, importing conduit-mcp from the built package, with the placeholders', async () => {
    assert.equal(await at(3), undefined);
  });

  test('a ts block that throws fails with its file:line and its stderr', async () => {
    const failure = await at(8);
    assert.match(failure ?? '', /^docs\/broken\.md:8: exit code 1, expected 0/);
    assert.match(failure ?? '', /this example is broken/);
  });

  test('a type error fails with the file:line of the offending line', async () => {
    const failure = await at(12);
    assert.match(failure ?? '', /^docs\/broken\.md:12: type errors:\ndocs\/broken\.md:13:7: error TS2322/);
  });

  test('an sh line that exits 1 fails with its own line, the lines before it having run', async () => {
    const failure = await at(17);
    assert.match(failure ?? '', /^docs\/broken\.md:21: exit code 1, expected 0\n\$ node -e/);
  });

  test('exit= is the exit code expected: 3 passes, 0 fails', async () => {
    assert.equal(await at(25), undefined);
    assert.match((await at(30)) ?? '', /^docs\/broken\.md:31: exit code 0, expected 3/);
  });

  test('stdin= is written to the block', async () => {
    assert.equal(await at(35), undefined);
  });

  test('text blocks are not run', async () => {
    assert.equal(await at(39), undefined);
  });

  test('a ts block that prints nothing fails', async () => {
    assert.match((await at(43)) ?? '', /^docs\/broken\.md:43: printed nothing on stdout/);
  });

  test('a block that runs past its timeout is killed and fails', async () => {
    assert.match((await at(49)) ?? '', /^docs\/broken\.md:49: did not finish within 500 ms/);
  });

  test('a fence without a language fails; so does an unknown option', async () => {
    assert.match((await at(53)) ?? '', /^docs\/broken\.md:53: a fence without a language/);
    assert.match((await at(58)) ?? '', /^docs\/broken\.md:58: unknown example option/);
  });
});
