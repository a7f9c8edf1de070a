// A real model loop without a network: the AI SDK's mock language model drives generateText over
// several steps with toolsFor('ai-sdk', pool), against the demo server, server-everything and a
// FastMCP (Python) server started for real; each step's tool results reach the next step, within the budget.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { ClientPool } from '../../src/index.js';
import { toolsFor } from '../../src/llm/index.js';
import { requirePython } from '../helpers/python.js';
import { serverBin } from './corpus.js';

type Prompt = Parameters<MockLanguageModelV2['doGenerate']>[0]['prompt'];
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** The tool results the model was shown in its last prompt, as text. */
function lastToolResults(prompt: Prompt): string[] {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return [];
  return last.content.map((part) => JSON.stringify(part.output));
}

test('generateText runs several steps of MCP tool calls through toolsFor(ai-sdk), results within the budget', async () => {
  const spillDirectory = mkdtempSync(path.join(tmpdir(), 'llm-loop-'));
  const quiet = { stderr: 'discard', stdinGrace: 5000, termGrace: 2000 } as const;
  await using pool = new ClientPool({
    servers: {
      demo: {
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [path.resolve(import.meta.dirname, '../../examples/demo-server.mjs')],
          ...quiet,
        },
      },
      everything: {
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [serverBin('server-everything'), 'stdio'],
          ...quiet,
        },
      },
      fastmcp: {
        transport: {
          type: 'stdio',
          command: requirePython(),
          args: [path.resolve(import.meta.dirname, '../fixtures/python/fastmcp_features_server.py')],
          ...quiet,
        },
      },
    },
  });
  await pool.connect();
  const maxResultBytes = 1500;
  const tools = await toolsFor('ai-sdk', pool, {
    execute: { maxResultBytes, spillDirectory },
    onWarning: () => {},
  });
  assert.ok(
    'demo__add' in tools && 'everything__echo' in tools && 'fastmcp__weather' in tools,
    Object.keys(tools).join(),
  );
  const seen: string[][] = [];
  const steps = [
    { toolName: 'demo__add', input: { a: 2, b: 40 } },
    { toolName: 'everything__echo', input: { message: `start ${'x'.repeat(6000)} end` } },
    { toolName: 'demo__add', input: { a: 'not a number', b: 1 } },
    { toolName: 'everything__get-tiny-image', input: {} },
    { toolName: 'fastmcp__weather', input: { city: 'Paris' } },
  ];
  const model = new MockLanguageModelV2({
    doGenerate: async ({ prompt }) => {
      seen.push(lastToolResults(prompt));
      const step = steps[seen.length - 1];
      if (step === undefined)
        return { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage, warnings: [] };
      const call = {
        type: 'tool-call' as const,
        toolCallId: `call-${seen.length}`,
        ...step,
        input: JSON.stringify(step.input),
      };
      return { content: [call], finishReason: 'tool-calls', usage, warnings: [] };
    },
  });
  try {
    const result = await generateText({ model, tools, prompt: 'use the tools', stopWhen: stepCountIs(10) });
    assert.equal(result.text, 'done');
    assert.equal(result.steps.length, 6);
    assert.deepEqual(seen[0], []);
    assert.match(seen[1]![0]!, /42/);
    const echoed = seen[2]![0]!;
    assert.match(echoed, /start x+/);
    assert.match(echoed, /x+ end/);
    assert.match(echoed, /cut here to keep the result within 1500 bytes; the whole result is saved at /);
    const shown = JSON.parse(echoed) as { value: string };
    assert.ok(Buffer.byteLength(shown.value) <= maxResultBytes, `${Buffer.byteLength(shown.value)} bytes`);
    assert.match(seen[3]![0]!, /"type":"error-text".*do not match its input schema: #\/a/);
    // The image is over the 1,500-byte budget: described, and saved with the whole result.
    assert.match(seen[4]![0]!, /\[image image\/png, \d+ bytes, not shown: over the result budget\]/);
    assert.match(
      seen[4]![0]!,
      /media left out to keep the result within 1500 bytes; the whole result is saved at /,
    );
    assert.ok(Buffer.byteLength((JSON.parse(seen[4]![0]!) as { value: string }).value) <= maxResultBytes);
    assert.match(seen[5]![0]!, /Paris.*21\.5/);
  } finally {
    rmSync(spillDirectory, { recursive: true, force: true });
  }
});
