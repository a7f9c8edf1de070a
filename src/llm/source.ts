/**
 * Reading tools from a ToolSource (a Client or a ClientPool: the same listTools/callTool surface),
 * with the last listing kept per source so executeToolCall finds a tool's original schema without
 * listing again on every call.
 */
import type { Tool } from '../index.js';
import type { ToolSource } from './types.js';

const listings = new WeakMap<ToolSource, Map<string, Tool>>();

/** Every tool of `source`, listed now (and remembered for findTool). */
export async function listSourceTools(source: ToolSource): Promise<Tool[]> {
  const { tools } = await source.listTools();
  listings.set(source, new Map(tools.map((tool) => [tool.name, tool])));
  return tools;
}

/** The tool named `name`: from the last listing, else from a new one; undefined when none has it. */
export async function findTool(source: ToolSource, name: string): Promise<Tool | undefined> {
  const known = listings.get(source)?.get(name);
  if (known) return known;
  return (await listSourceTools(source)).find((tool) => tool.name === name);
}

/** The names of the tools last listed for `source`, for an "unknown tool" message. */
export function knownToolNames(source: ToolSource): string[] {
  return [...(listings.get(source)?.keys() ?? [])];
}
