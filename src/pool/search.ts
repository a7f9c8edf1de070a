import type { Tool } from '../protocol/results.js';
import type { ToolManifest } from './manifest.js';
import type { PoolMember } from './member.js';
import { poolName } from './names.js';
import type { ResolvedPoolOptions } from './options.js';
import { buildToolIndex, type ToolIndex } from './tool-index.js';

/** One tool `searchTools` found, under its pool name, best first. */
export interface ToolSearchMatch {
  /** The pool name: what `callTool` takes. */
  readonly name: string;
  /** The server that has it. */
  readonly server: string;
  /** Its name on that server. */
  readonly originalName: string;
  /** Its title, if it has one. */
  readonly title?: string;
  /** Its description, if it has one. */
  readonly description?: string;
  /** Its input schema, as the server gave it. */
  readonly inputSchema: Tool['inputSchema'];
  /** Its BM25F score: higher is better, comparable within one search only. */
  readonly score: number;
  /**
   * `'live'`: from the server's list in this process; `'manifest'`: from the list an earlier run
   * kept (a lazy server not started yet: `callTool` starts it).
   */
  readonly from: 'live' | 'manifest';
}

interface Candidate {
  readonly member: PoolMember;
  readonly tool: Tool;
  readonly name: string;
  readonly from: 'live' | 'manifest';
}

/** A built index and the lists it was built from: rebuilt only when one of them is replaced. */
export interface SearchCache {
  lists: ReadonlyArray<Tool[] | undefined>;
  byName: Map<string, Candidate>;
  index: ToolIndex;
}

/** Each server's list search covers: its live list, else the manifest's; none for a disabled or closed one. */
function listsOf(
  members: readonly PoolMember[],
  manifest: ToolManifest | undefined,
): Array<Tool[] | undefined> {
  return members.map((member) =>
    member.state === 'disabled' || member.state === 'closed'
      ? undefined
      : (member.items('tools') ?? manifest?.tools(member.name)),
  );
}

/**
 * The tools of those lists under pool names, each with where it came from (the live list, or the
 * manifest: a lazy server not started yet, or one down with no list in this process). A pool name
 * two servers share goes to the first, as in `listTools`' collision order.
 */
function candidatesOf(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  lists: ReadonlyArray<Tool[] | undefined>,
): Map<string, Candidate> {
  const byName = new Map<string, Candidate>();
  for (const [index, member] of members.entries()) {
    const from = member.items('tools') === lists[index] ? 'live' : 'manifest';
    for (const tool of lists[index] ?? []) {
      const name = poolName(member.name, tool.name, options.names);
      if (!byName.has(name)) byName.set(name, { member, tool, name, from });
    }
  }
  return byName;
}

/** The best `limit` matches of `query` among the pool's tools; `cache` is reused while the lists stay. */
export function searchCandidates(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  manifest: ToolManifest | undefined,
  cache: SearchCache | undefined,
  query: string,
  limit: number,
): { matches: ToolSearchMatch[]; cache: SearchCache } {
  const lists = listsOf(members, manifest);
  const same =
    cache !== undefined && cache.lists.length === lists.length && cache.lists.every((l, i) => l === lists[i]);
  let current = cache;
  if (!same || current === undefined) {
    const byName = candidatesOf(members, options, lists);
    const tools = [...byName.values()].map(({ tool, name }) => ({ ...tool, name }));
    current = { lists, byName, index: buildToolIndex(tools) };
  }
  const matches = current.index.search(query, { limit }).map(({ name, score }): ToolSearchMatch => {
    const { member, tool, from } = current.byName.get(name)!;
    return {
      name,
      server: member.name,
      originalName: tool.name,
      ...(tool.title !== undefined && { title: tool.title }),
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: tool.inputSchema,
      score,
      from,
    };
  });
  return { matches, cache: current };
}

/** The server whose manifest (not its live list) has the tool of pool name `name`. */
export function manifestOwner(
  members: readonly PoolMember[],
  options: ResolvedPoolOptions,
  manifest: ToolManifest | undefined,
  name: string,
): PoolMember | undefined {
  if (manifest === undefined) return undefined;
  return members.find(
    (member) =>
      member.items('tools') === undefined &&
      manifest.tools(member.name)?.some((tool) => poolName(member.name, tool.name, options.names) === name),
  );
}
