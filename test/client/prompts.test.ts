// The prompt obligation (CLIENT-OBLIGATIONS item 84, "MUST validate prompt inputs and outputs"):
// prompt arguments are checked against the prompt's declared arguments before anything is sent,
// and a prompts/get result that is not a GetPromptResult is a ProtocolError.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ProtocolError, UsageError } from '../../src/index.js';
import { nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';
import { stdinRecord } from '../helpers/record.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

function promptsClient() {
  const record = stdinRecord();
  const client = new Client({
    name: 'prompter',
    transport: {
      type: 'stdio',
      ...nodeServer('prompts.mjs', ['--record', record.file], { stderr: 'discard', stdinGrace: 200 }),
    },
  });
  clients.push(client);
  const sent = (method: string) => record.read().filter((message) => message.method === method);
  return { client, sent };
}

const refused = (pattern: RegExp) => (error: unknown) =>
  error instanceof UsageError && error.server === 'prompter' && pattern.test(error.message);

test('arguments are checked against the declared ones before sending: missing, undeclared, not strings', async () => {
  const { client, sent } = promptsClient();
  await client.connect();
  const greeting = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', greeting: 'hi' } });
  assert.deepEqual(greeting.messages, [{ role: 'user', content: { type: 'text', text: 'hi Ada' } }]);
  assert.equal(sent('prompts/list').length, 1, 'the prompts were listed first, once');
  await assert.rejects(
    client.getPrompt({ name: 'greet', arguments: { greeting: 'hi' } }),
    refused(/^prompter: prompts\/get: greet needs the argument name \(it declares name, greeting\)$/),
  );
  await assert.rejects(
    client.getPrompt({ name: 'greet', arguments: { name: 'Ada', nmae: 'x' } }),
    refused(/^prompter: prompts\/get: greet has no argument nmae \(it declares name, greeting\)$/),
  );
  await assert.rejects(
    client.getPrompt({ name: 'plain', arguments: { extra: 'x' } }),
    refused(/plain has no argument extra \(it declares none\)/),
  );
  await assert.rejects(
    client.getPrompt({ name: 'greet', arguments: { name: 42 as unknown as string } }),
    refused(/argument name of greet must be a string, got /),
  );
  await assert.rejects(
    client.getPrompt({ name: 7 } as unknown as { name: string }),
    refused(/params must be \{ name: string/),
  );
  await sleep(50);
  assert.equal(sent('prompts/get').length, 1, 'only the valid call reached the server');
  assert.equal(sent('prompts/list').length, 1);
  assert.deepEqual((await client.getPrompt({ name: 'plain' })).messages[0]?.content, {
    type: 'text',
    text: 'plain',
  });
});

test('the declarations follow list changes: after notifications/prompts/list_changed the prompts are listed again', async () => {
  const { client, sent } = promptsClient();
  await client.connect();
  await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  await client.callTool({ name: 'change-prompts' });
  await sleep(50);
  const greeting = await client.getPrompt({ name: 'greet', arguments: { who: 'Bob' } });
  assert.equal(
    greeting.messages[0]?.content.type === 'text' && greeting.messages[0].content.text,
    'hello Bob',
  );
  assert.equal(sent('prompts/list').length, 2);
  await assert.rejects(
    client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }),
    refused(/greet has no argument name \(it declares who, greeting\)/),
  );
});

test('a prompts/get result that is not a GetPromptResult is a ProtocolError naming what is wrong', async () => {
  const { client } = promptsClient();
  await client.connect();
  for (const [name, problem] of [
    ['bad-role', "messages[0].role must be 'user' or 'assistant', got "],
    ['bad-content', 'messages[0].content (text) needs the string text'],
    ['no-messages', 'messages must be an array, got undefined'],
    ['unknown-type', 'messages[0].content has type '],
    ['bad-resource', 'messages[0].content (resource) needs resource.uri'],
  ] as const) {
    await assert.rejects(client.getPrompt({ name }), (error) => {
      assert.ok(error instanceof ProtocolError, `${name}: ${String(error)}`);
      assert.equal(error.server, 'prompter');
      assert.ok(
        error.message.startsWith(
          `prompter: prompts/get ${name} returned an invalid GetPromptResult: ${problem}`,
        ),
        error.message,
      );
      return true;
    });
  }
});
