// The property test's corpus: the tools of the published servers in the dev dependencies (started
// for real and listed), the tool input schemas of the spec's examples, and the demo server's tools.
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClientPool, type Tool } from '../../src/index.js';

const root = path.resolve(import.meta.dirname, '../..');

/** A published server's entry point (its package's bin), run with this Node. */
export function serverBin(name: string): string {
  const directory = path.join(root, 'node_modules', '@modelcontextprotocol', name);
  const { bin } = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return path.join(directory, typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}

const quiet = { stderr: 'discard', stdinGrace: 5000, termGrace: 2000 } as const;

/** A pool of the three published servers and the demo server (close it when done). */
export function publishedPool(): ClientPool {
  const stdio = (script: string, args: string[] = [], env: Record<string, string> = {}) => ({
    type: 'stdio' as const,
    command: process.execPath,
    args: [script, ...args],
    env,
    ...quiet,
  });
  return new ClientPool({
    servers: {
      everything: { transport: stdio(serverBin('server-everything'), ['stdio']) },
      filesystem: { transport: stdio(serverBin('server-filesystem'), [tmpdir()]) },
      memory: {
        transport: stdio(serverBin('server-memory'), [], {
          MEMORY_FILE_PATH: path.join(tmpdir(), `llm-memory-${process.pid}.jsonl`),
        }),
      },
      demo: { transport: stdio(path.join(root, 'examples/demo-server.mjs')) },
    },
  });
}

/** Every tool the spec's examples show (their `inputSchema`s), named by file. */
export function specExampleTools(): Tool[] {
  const tools: Tool[] = [];
  const visit = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.json'))
        collect(JSON.parse(readFileSync(full, 'utf8')), entry.name, tools);
    }
  };
  visit(path.join(root, 'test/data/spec/examples-2026-07-28'));
  return tools;
}

function collect(value: unknown, file: string, into: Tool[]): void {
  if (Array.isArray(value)) for (const item of value) collect(item, file, into);
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  if (
    typeof record.name === 'string' &&
    typeof record.inputSchema === 'object' &&
    record.inputSchema !== null
  ) {
    const name = `${file.replace(/\.json$/, '')}_${into.length}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(-64);
    into.push({ ...(record as unknown as Tool), name });
  }
  for (const child of Object.values(record)) collect(child, file, into);
}
