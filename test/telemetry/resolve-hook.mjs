// A module resolve hook that appends every URL the process resolves to a file (one a line), so a
// test can tell which modules a run loaded. Registered by record-imports.mjs.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
