import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { temporaryDirectory } from './fixtures.js';

/** A file a fixture server appends every stdin line to (`--record`), and ways to read it. */
export function stdinRecord() {
  const file = path.join(temporaryDirectory(), `stdin-${process.hrtime.bigint()}.jsonl`);
  const read = (): Array<Record<string, unknown>> =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  /** Waits (up to `ms`) until a recorded message matches, and returns it. */
  const waitFor = async (match: (message: Record<string, unknown>) => boolean, ms = 3000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = read().find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no recorded message matched within ${ms} ms: ${JSON.stringify(read())}`);
      await sleep(20);
    }
  };
  return { file, read, waitFor };
}
