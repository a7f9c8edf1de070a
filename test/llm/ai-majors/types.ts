// Type-checked by the project's typecheck (never run): toolsFor('ai-sdk') is what generateText of
// `ai` v6 and v7 takes as `tools`.
import type { ToolSet as ToolSet6 } from 'ai-v6';
import type { ToolSet as ToolSet7 } from 'ai-v7';
import type { ClientPool } from '../../../src/index.js';
import { toolsFor } from '../../../src/llm/index.js';

export async function asToolSets(pool: ClientPool): Promise<[ToolSet6, ToolSet7]> {
  return [await toolsFor('ai-sdk', pool), await toolsFor('ai-sdk', pool)];
}
