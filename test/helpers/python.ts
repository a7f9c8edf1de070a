// The Python interpreter of the project's .venv (made by scripts/python-env.mjs, which `npm test`
// runs first), for the tests that run Python MCP servers. Missing is a failure, never a skip.
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export const venvPython =
  process.platform === 'win32'
    ? path.join(root, '.venv', 'Scripts', 'python.exe')
    : path.join(root, '.venv', 'bin', 'python');

/** The venv's python, or an error that says how to make it. */
export function requirePython(): string {
  if (!existsSync(venvPython))
    throw new Error(`${venvPython} is missing: run \`node scripts/python-env.mjs\` (npm test runs it first)`);
  return venvPython;
}
