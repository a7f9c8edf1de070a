// The diagnostics channels a secrecy test subscribes to: every one src/diagnostics.ts declares.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** Every channel declared in src/diagnostics.ts, by name (a tracing channel by its five). */
export function declaredChannels(): string[] {
  const source = readFileSync(path.join(root, 'src/diagnostics.ts'), 'utf8');
  const names: string[] = [];
  for (const [, kind, name] of source.matchAll(/dc\.(channel|tracingChannel)\('([^']+)'\)/g)) {
    if (kind === 'channel') names.push(name!);
    else
      for (const event of ['start', 'end', 'asyncStart', 'asyncEnd', 'error'])
        names.push(`tracing:${name}:${event}`);
  }
  return names;
}
