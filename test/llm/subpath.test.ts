// `conduit-mcp/llm` as users get it: a subpath export of the built package, loaded only when
// imported, with the examples for each provider running against the demo server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('the main entry never loads src/llm; src/llm uses the public API, the protocol modules and itself', () => {
  for (const file of sources(path.join(root, 'src')).filter(
    (each) => !each.includes(`${path.sep}llm${path.sep}`),
  )) {
    assert.doesNotMatch(readFileSync(file, 'utf8'), /from '\.{1,2}\/(\.\.\/)*llm\//, file);
  }
  for (const file of sources(path.join(root, 'src/llm'))) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
      const resolved = specifier!.startsWith('.')
        ? path.relative(path.join(root, 'src'), path.resolve(path.dirname(file), specifier!))
        : specifier!;
      const allowed =
        resolved === 'index.js' ||
        resolved.startsWith('llm/') ||
        resolved.startsWith('protocol/') ||
        resolved.startsWith('node:') ||
        resolved === 'ai';
      assert.ok(allowed, `${path.relative(root, file)} imports ${specifier}`);
    }
  }
});

test('each provider example runs against the demo server through the built conduit-mcp/llm', async () => {
  assert.ok(existsSync(path.join(root, 'dist/llm/index.js')), 'dist/llm is missing: run npm run build first');
  const outputs: Record<string, string> = {};
  for (const provider of ['openai', 'anthropic', 'gemini', 'ai-sdk']) {
    const { stdout } = await run(process.execPath, [path.join(root, `examples/llm-${provider}.mjs`)], {
      cwd: root,
      timeout: 60_000,
    });
    outputs[provider] = stdout;
  }
  assert.match(outputs.openai!, /"strict": true/);
  assert.match(outputs.openai!, /"role": "tool",\s+"tool_call_id": "call_1",\s+"content": "42"/);
  assert.match(outputs.anthropic!, /"input_schema"/);
  assert.match(outputs.anthropic!, /"type": "tool_result"[\s\S]*"text": "42"/);
  assert.match(outputs.gemini!, /"type": "OBJECT"/);
  assert.match(outputs.gemini!, /"output": "42"/);
  assert.equal(outputs['ai-sdk']!.trim(), 'The tool said: 42');
});
