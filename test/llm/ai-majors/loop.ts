// Run by ai-majors.test.ts with AI_PACKAGE naming an `ai` major (ai-v6, ai-v7) and the alias hook:
// generateText with that major's mock model, over toolsFor('ai-sdk') tools of the demo server and
// search mode. Prints what the model was shown, as JSON, for the test to check.
import path from 'node:path';
import { ClientPool } from '../../../src/index.js';
import { toolsFor } from '../../../src/llm/index.js';

const { generateText, stepCountIs } = (await import('ai')) as unknown as typeof import('ai-v6');
const { MockLanguageModelV3 } = (await import('ai/test')) as unknown as typeof import('ai-v6/test');
const demo = path.resolve(import.meta.dirname, '../../../examples/demo-server.mjs');
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

await using pool = new ClientPool({
  servers: {
    demo: { transport: { type: 'stdio', command: process.execPath, args: [demo], stderr: 'discard' } },
  },
});
await pool.connect();
const shown: unknown[] = [];
const calls = [
  { toolName: 'demo__add', input: { a: 2, b: 40 } },
  { toolName: 'demo__add', input: { a: 'two' } },
];
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const last = prompt.at(-1);
    if (last?.role === 'tool')
      shown.push(...last.content.map((part) => ('output' in part ? part.output : part)));
    const next = calls[step++];
    return next
      ? {
          content: [
            {
              type: 'tool-call',
              toolCallId: `c${step}`,
              toolName: next.toolName,
              input: JSON.stringify(next.input),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        }
      : {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
  },
});
const tools = await toolsFor('ai-sdk', pool);
const result = await generateText({ model, tools, prompt: 'add', stopWhen: stepCountIs(5) });
const searchTools = await toolsFor('ai-sdk', pool, { search: true });
process.stdout.write(
  `${JSON.stringify({ text: result.text, shown, searchTools: Object.keys(searchTools) })}\n`,
);
