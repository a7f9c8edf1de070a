import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { StdioOptions } from '../../src/transport/stdio/options.js';

export const fixturesDirectory = path.resolve(import.meta.dirname, '../fixtures/servers');

/** Absolute path of a fixture server script. */
export function fixture(name: string): string {
  return path.join(fixturesDirectory, name);
}

/** StdioOptions that run a fixture server with this Node. */
export function nodeServer(
  name: string,
  args: string[] = [],
  extra: Partial<StdioOptions> = {},
): StdioOptions {
  return { command: process.execPath, args: [fixture(name), ...args], ...extra };
}

/**
 * A fresh temporary directory, removed after the file's tests. The removal retries: a server still
 * ending may write a last line into it while it is removed (ENOTEMPTY).
 */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'conduit-test-'));
  after(() => rmSync(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
  return directory;
}
