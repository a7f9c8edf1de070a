// executeToolCall against real MCP servers (the demo server and the published ones), in each
// provider's shapes: results, media, audience, argument errors, strict-mode nulls and the budget.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ClientPool } from '../../src/index.js';
import { executeToolCall, type LlmWarning, toolsFor } from '../../src/llm/index.js';
import { publishedPool } from './corpus.js';

let pool: ClientPool;
const spillDirectory = mkdtempSync(path.join(tmpdir(), 'llm-spill-'));
before(async () => {
  pool = publishedPool();
  await pool.connect();
});
after(async () => {
  await pool.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

const chatCall = (name: string, args: unknown, id = 'call_1') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});

test('openai: a call runs and its text comes back as the tool message', async () => {
  const message = await executeToolCall('openai', pool, chatCall('everything__echo', { message: 'hello' }));
  assert.equal(message.role, 'tool');
  assert.equal(message.tool_call_id, 'call_1');
  assert.match(message.content, /hello/);
});

test('openai strict: a null sent for an omitted optional is dropped, so the server default applies', async () => {
  const tools = await toolsFor('openai', pool, { onWarning: () => {} });
  const links = tools.find((tool) => tool.function.name === 'everything__get-resource-links');
  assert.equal(links?.function.strict, true);
  assert.deepEqual(links?.function.parameters?.required, ['count']);
  const message = await executeToolCall(
    'openai',
    pool,
    chatCall('everything__get-resource-links', { count: null }),
  );
  assert.doesNotMatch(message.content, /^Error/);
  assert.equal(message.content.match(/\[resource link\]/g)?.length, 3, message.content);
});

test('arguments the original schema refuses come back as an error the model can read, not a throw', async () => {
  const wrong = await executeToolCall('anthropic', pool, {
    type: 'tool_use',
    id: 'toolu_1',
    name: 'demo__add',
    input: { a: 'two', b: 3 },
  });
  assert.equal(wrong.is_error, true);
  assert.match(JSON.stringify(wrong.content), /do not match its input schema: #\/a/);
  assert.doesNotMatch(JSON.stringify(wrong.content), /\.\./, 'one period between the sentences');
  const unreadable = await executeToolCall('openai', pool, chatCall('demo__add', '{"a": 1,'));
  assert.match(unreadable.content, /not valid JSON/);
  const unknown = await executeToolCall('gemini', pool, { name: 'nope', args: {} });
  assert.match(
    JSON.stringify(unknown.functionResponse.response),
    /no tool named .+nope.+ Tools available: everything__echo, /,
  );
});

test('images: media blocks where the provider takes them in a tool result, a description elsewhere', async () => {
  const anthropic = await executeToolCall('anthropic', pool, {
    type: 'tool_use',
    id: 'toolu_2',
    name: 'everything__get-tiny-image',
    input: {},
  });
  const image = anthropic.content.find((block) => block.type === 'image');
  assert.equal(image?.type === 'image' && image.source.media_type, 'image/png');
  const responses = await executeToolCall('openai-responses', pool, {
    type: 'function_call',
    call_id: 'c2',
    name: 'everything__get-tiny-image',
    arguments: '{}',
  });
  assert.ok(
    responses.output.some(
      (part) => part.type === 'input_image' && part.image_url.startsWith('data:image/png;base64,'),
    ),
  );
  const gemini = await executeToolCall('gemini', pool, { name: 'everything__get-tiny-image', args: {} });
  assert.equal(gemini.functionResponse.parts?.[0]?.inlineData.mimeType, 'image/png');
  const chat = await executeToolCall('openai', pool, chatCall('everything__get-tiny-image', {}));
  assert.match(
    chat.content,
    /\[image image\/png, \d+ bytes, not shown: this model takes none in a tool result\]/,
  );
});

test('content whose audience leaves out the assistant is not sent to the model', async () => {
  const call = {
    toolCallId: 't1',
    toolName: 'everything__get-annotated-message',
    input: { messageType: 'success', includeImage: true },
  };
  const result = await executeToolCall('ai-sdk', pool, call);
  const raw = await pool.callTool({ name: 'everything__get-annotated-message', arguments: call.input });
  const forUser = raw.content.filter(
    (block) => block.annotations?.audience && !block.annotations.audience.includes('assistant'),
  );
  assert.ok(forUser.length > 0, 'the server sends user-only content for a success message');
  assert.deepEqual(result.output, { type: 'text', value: '[the result was shown to the user only]' });
  const both = await executeToolCall('ai-sdk', pool, {
    ...call,
    input: { messageType: 'error', includeImage: true },
  });
  assert.deepEqual(
    both.output,
    { type: 'text', value: 'Error: Operation failed' },
    'the user-only image is left out',
  );
});

test('over the budget: head and tail kept around a marker naming the spill file, which holds the whole result', async () => {
  const text = `${'head '.repeat(200)}${'middle '.repeat(2000)}${' tail'.repeat(200)}`;
  const options = { maxResultBytes: 2000, spillDirectory };
  const message = await executeToolCall(
    'openai',
    pool,
    chatCall('everything__echo', { message: text }),
    options,
  );
  assert.ok(Buffer.byteLength(message.content) <= 2000, `${Buffer.byteLength(message.content)} bytes`);
  assert.match(message.content, /^Echo: head head/);
  assert.match(message.content, /tail tail$/);
  const marker =
    /\[\.\.\. (\d+) of (\d+) bytes \(\d+ lines\) cut here to keep the result within 2000 bytes; the whole result is saved at (\S+) \.\.\.\]/.exec(
      message.content,
    );
  assert.ok(marker, message.content);
  assert.ok(existsSync(marker[3]!));
  assert.equal(readFileSync(marker[3]!, 'utf8'), `Echo: ${text}`);
  const tokens = await executeToolCall('openai', pool, chatCall('everything__echo', { message: text }), {
    maxResultTokens: 100,
    spill: async () => 'host-store://result/1',
  });
  assert.ok(Buffer.byteLength(tokens.content) <= 400);
  assert.match(tokens.content, /saved at host-store:\/\/result\/1/);
});

test('a tool the provider cannot take is left out with a warning naming tool, provider and why', async () => {
  const warnings: LlmWarning[] = [];
  const declarations = await toolsFor('gemini', pool, { onWarning: (warning) => warnings.push(warning) });
  const names = declarations.map((declaration) => declaration.name);
  for (const warning of warnings.filter((each) => each.leftOut)) {
    assert.equal(warning.provider, 'gemini');
    assert.ok(!names.includes(warning.tool));
    assert.ok(warning.reason.length > 0);
  }
  assert.ok(names.includes('demo__add'));
});
