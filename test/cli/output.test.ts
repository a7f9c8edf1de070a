// Issue 20 defect 8 (output) and issue 15 guarantee 11: server text never drives the terminal.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { oneLine } from '../../src/cli/render.js';
import { RAW, SAFE } from '../../src/cli/sanitize.js';
import { buildOnce, CLI_SERVER, run } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

const ESC = '\u001b';
const EVIL = `red ${ESC}[31mRED${ESC}[0m bell\u0007 back\rover title${ESC}]0;pwned\u0007 rtl\u202eevil`;
const SHOWN = 'red \\x1b[31mRED\\x1b[0m bell\\x07 back\\x0dover title\\x1b]0;pwned\\x07 rtl\\u202eevil';
/** No byte that a terminal acts on, but newline. */
const assertInert = (text: string) =>
  assert.doesNotMatch(
    text,
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/,
    JSON.stringify(text),
  );

describe('call output', () => {
  test('content only; structuredContent when there is no content, or under --structured', async () => {
    const both = await run(['call', 'both', ...CLI_SERVER()]);
    assert.equal(both.stdout, 'the content\n');
    const structured = await run(['call', 'both', '--structured', ...CLI_SERVER()]);
    assert.equal(structured.stdout, 'the content\n{\n  "value": 42\n}\n');
  });

  test('images, audio and blobs: a summary, and --output saves them under names of our own', async () => {
    const summary = await run(['call', 'image', ...CLI_SERVER()]);
    assert.equal(
      summary.stdout,
      '[image: image/png, 70 bytes]\n[resource file:///data.bin: application/octet-stream, 4 bytes]\n[audio: audio/wav, 3 bytes]\n',
    );
    const directory = path.join(temporaryDirectory(), 'out');
    const saved = await run(['call', 'image', '--output', directory, ...CLI_SERVER()]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.deepEqual(readdirSync(directory).sort(), ['1-image.png', '2-blob.bin', '3-audio.wav']);
    assert.deepEqual([...readFileSync(path.join(directory, '2-blob.bin'))], [0, 1, 2, 3]);
    assert.equal(readFileSync(path.join(directory, '1-image.png')).subarray(1, 4).toString(), 'PNG');
    assert.match(
      saved.stdout,
      new RegExp(`\\[image: image/png, 70 bytes, saved to ${directory}/1-image\\.png\\]`),
    );
  });

  test('the tools table: parameters with types and required marks; the description, not the title', async () => {
    const { stdout } = await run(['tools', ...CLI_SERVER()]);
    assert.match(stdout, /^ {2}echo +text\*: string, count: integer +Echoes its arguments$/m);
    assert.match(stdout, /^ {2}slow +ms\*: integer$/m);
    assert.doesNotMatch(stdout, /Echo title/);
  });
});

test('a one-line summary reads line breaks and runs of white space as one space, with or without --raw; escapes stay escaped', () => {
  const instructions = '# Title\n\nFirst line.\r\n\tSecond  line.\n';
  assert.equal(oneLine(SAFE, instructions, 400), '# Title First line. Second line.');
  assert.equal(oneLine(RAW, instructions, 400), '# Title First line. Second line.');
  assert.equal(oneLine(SAFE, `a\n${'\u001b'}[2J b`, 400), 'a \\x1b[2J b');
  assert.equal(oneLine(SAFE, 'x'.repeat(20), 10), `${'x'.repeat(9)}…`);
});

describe('control characters and escape sequences from the server', () => {
  test('tool output, resource text, prompt messages and errors are shown visibly', async () => {
    const call = await run(['call', 'escape', ...CLI_SERVER()]);
    assert.equal(call.stdout, `${SHOWN}\n`);
    const read = await run(['read', 'fx://evil', ...CLI_SERVER()]);
    assert.equal(read.stdout, `${SHOWN}\n`);
    const prompt = await run(['prompt', 'greet', '--arg', 'who=Ada', ...CLI_SERVER()]);
    assert.equal(prompt.stdout, 'user: hello Ada\\x1b[5m\n');
    const error = await run(['call', 'nope', ...CLI_SERVER()]);
    assert.match(error.stderr, /Unknown tool: nope\\x1b\[31m\n$/);
    for (const text of [call.stdout, read.stdout, prompt.stdout, error.stderr]) assertInert(text);
  });

  test('server info, instructions, tool descriptions and log messages in inspect and on stderr', async () => {
    const inspect = await run(['inspect', ...CLI_SERVER('--evil-info')]);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /^Server {8}evil\\x1b\[31m 1\\x1b\[2J$/m);
    assert.match(inspect.stdout, /^Instructions {2}Use me\\x1b\]0;title\\x07 now$/m);
    assert.match(inspect.stdout, /Prints \\x1b\[2J escapes/);
    assertInert(inspect.stdout);
    const logs = await run(['call', 'log', '--log-level', 'debug', ...CLI_SERVER()]);
    assert.match(logs.stderr, /^\[warning fx\] at warning\\x1b\[31m$/m);
    assertInert(logs.stderr);
  });

  test('--json is unaffected; --raw prints the text as is', async () => {
    const json = await run(['call', 'escape', '--json', ...CLI_SERVER()]);
    assert.equal(JSON.parse(json.stdout).content[0].text, EVIL);
    const raw = await run(['call', 'escape', '--raw', ...CLI_SERVER()]);
    assert.equal(raw.stdout, `${EVIL}\n`);
  });
});
