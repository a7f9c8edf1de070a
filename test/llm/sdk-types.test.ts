// The official SDKs type-check what toolsFor and executeToolCall produce as their request
// parameters, and their tool calls as executeToolCall's input: this file is compiled by tsc (the
// project's typecheck covers test/), and runs the same values for real against the demo server.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { ClientPool } from '../../src/index.js';
import { executeToolCall, toolsFor } from '../../src/llm/index.js';

const demo = path.resolve(import.meta.dirname, '../../examples/demo-server.mjs');

test("definitions and result blocks are the official SDKs' request parameters", async () => {
  await using pool = new ClientPool({
    servers: {
      demo: { transport: { type: 'stdio', command: process.execPath, args: [demo], stderr: 'discard' } },
    },
  });
  await pool.connect();

  const chatTools: OpenAI.Chat.ChatCompletionTool[] = await toolsFor('openai', pool);
  const chatCall: OpenAI.Chat.ChatCompletionMessageFunctionToolCall = {
    id: 'call_1',
    type: 'function',
    function: { name: 'demo__add', arguments: '{"a":1,"b":2}' },
  };
  const chatMessage: OpenAI.Chat.ChatCompletionToolMessageParam = await executeToolCall(
    'openai',
    pool,
    chatCall,
  );
  const chatRequest: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
    model: 'gpt-test',
    messages: [{ role: 'assistant', tool_calls: [chatCall] }, chatMessage],
    tools: chatTools,
  };

  const responseTools: OpenAI.Responses.FunctionTool[] = await toolsFor('openai-responses', pool);
  const responseCall: OpenAI.Responses.ResponseFunctionToolCall = {
    type: 'function_call',
    call_id: 'c1',
    name: 'demo__add',
    arguments: '{"a":1,"b":2}',
  };
  const responseOutput: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = await executeToolCall(
    'openai-responses',
    pool,
    responseCall,
  );
  const responseRequest: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
    model: 'gpt-test',
    input: [responseCall, responseOutput],
    tools: responseTools,
  };

  const anthropicTools: Anthropic.Tool[] = await toolsFor('anthropic', pool);
  const toolUse: Anthropic.ToolUseBlock = {
    type: 'tool_use',
    id: 'toolu_1',
    name: 'demo__add',
    input: { a: 1, b: 2 },
    caller: { type: 'direct' },
  } as Anthropic.ToolUseBlock;
  const toolResult: Anthropic.ToolResultBlockParam = await executeToolCall('anthropic', pool, toolUse);
  const anthropicRequest: Anthropic.MessageCreateParamsNonStreaming = {
    model: 'claude-test',
    max_tokens: 100,
    messages: [
      { role: 'assistant', content: [toolUse] },
      { role: 'user', content: [toolResult] },
    ],
    tools: anthropicTools,
  };

  assert.equal(chatRequest.tools?.length, 2);
  assert.match(JSON.stringify(chatRequest.messages[1]), /3/);
  assert.equal(responseRequest.tools?.length, 2);
  assert.match(JSON.stringify(responseRequest.input), /function_call_output.*3/);
  assert.equal(anthropicRequest.tools?.length, 2);
  assert.equal(toolResult.is_error, undefined);
  assert.match(JSON.stringify(toolResult.content), /3/);
});
