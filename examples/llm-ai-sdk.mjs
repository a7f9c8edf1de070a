// The demo server's tools in a Vercel AI SDK loop. Needs the `ai` package; runs without a network:
// the model here is the SDK's mock, which calls demo__add once and then answers with the result.
// `npm run build && node examples/llm-ai-sdk.mjs`. With a real model, pass its provider's model
// (e.g. openai('gpt-...')) to generateText instead: the tools stay the same.
import path from 'node:path';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { ClientPool } from 'conduit-mcp';
import { toolsFor } from 'conduit-mcp/llm';

const demo = path.join(import.meta.dirname, 'demo-server.mjs');
const pool = new ClientPool({
  servers: { demo: { transport: { type: 'stdio', command: process.execPath, args: [demo] } } },
});
try {
  await pool.connect();

  const tools = await toolsFor('ai-sdk', pool, { execute: { maxResultBytes: 16_384 } });
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const model = new MockLanguageModelV2({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role === 'tool') {
        const output = last.content[0].output;
        return {
          content: [{ type: 'text', text: `The tool said: ${output.value}` }],
          finishReason: 'stop',
          usage,
          warnings: [],
        };
      }
      const call = {
        type: 'tool-call',
        toolCallId: 'call-1',
        toolName: 'demo__add',
        input: '{"a": 2, "b": 40}',
      };
      return { content: [call], finishReason: 'tool-calls', usage, warnings: [] };
    },
  });

  const result = await generateText({ model, tools, prompt: 'What is 2 + 40?', stopWhen: stepCountIs(5) });
  console.log(result.text);
} finally {
  await pool.close();
}
