import type { Tool } from '../index.js';
import type { Output } from './output.js';

/** The edit distance of two words (insertions, deletions, substitutions), case ignored. */
function distance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = previous[j - 1]! + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]!;
}

/** The declared name nearest to `name`, when one is near enough to be a likely typo. */
export function closestName(name: string, declared: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of declared) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function declaredNames(tool: Tool): string[] {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties) : [];
}

/** ` (did you mean limit?)`, or nothing when no declared name is near. */
export function didYouMean(name: string, tool: Tool): string {
  const near = closestName(name, declaredNames(tool));
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/**
 * Warns about each argument the tool's schema does not declare, naming the nearest declared one: a
 * schema that allows extra keys (most do, by leaving `additionalProperties` out) takes a misspelt
 * name without a word, and the tool then runs without the argument meant. `refusedLater`: the
 * schema forbids extra keys and the arguments are checked, so the check names them instead.
 */
export function warnUndeclaredArguments(
  tool: Tool,
  names: Iterable<string>,
  output: Output,
  refusedLater: boolean,
): void {
  if (refusedLater && (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties === false)
    return;
  const declared = declaredNames(tool);
  for (const name of names) {
    if (declared.includes(name)) continue;
    output.err(
      `conduit-mcp: warning: ${output.policy.line(tool.name)} declares no argument ${output.policy.line(name)}${didYouMean(name, tool)}; sending it anyway`,
    );
  }
}
