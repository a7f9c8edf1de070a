// What a secrecy test searches for a leak: every way a user or a logger could render a value.
import { inspect } from 'node:util';

/** Every way a user or a logger could render something. */
export function renderings(thing: unknown, depth = 0): string {
  const parts: string[] = [];
  const attempt = (render: () => unknown) => {
    try {
      parts.push(String(render()));
    } catch {
      // some values have no such rendering (null prototype, cycles)
    }
  };
  attempt(() => String(thing));
  attempt(() => JSON.stringify(thing));
  attempt(() => inspect(thing, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true }));
  if (thing instanceof Error && depth < 5) {
    parts.push(thing.message, thing.stack ?? '');
    if (thing.cause !== undefined) parts.push(renderings(thing.cause, depth + 1));
    for (const key of Object.getOwnPropertyNames(thing)) {
      attempt(() => renderings((thing as unknown as Record<string, unknown>)[key], depth + 1));
    }
  }
  return parts.join('\n');
}
