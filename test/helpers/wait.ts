import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock } from '../../src/protocol/results.js';

/** Waits until `condition` holds, failing with `what` after `ms`. */
export async function waitFor(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** The text blocks of a tool result, joined; fails if the tool reported an error. */
export function textOf(result: { content: ContentBlock[]; isError?: boolean }): string {
  assert.notEqual(result.isError, true, `the tool failed: ${JSON.stringify(result.content)}`);
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

export const names = (items: Array<{ name: string }>) => items.map((item) => item.name);
