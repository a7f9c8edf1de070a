/**
 * Search mode (`toolsFor(provider, pool, { search: true })`): the model gets two tools instead of
 * hundreds, one that searches the pool's tools (ClientPool.searchTools: the best matches with their
 * names, descriptions and input schemas, as compact JSON) and one that calls a found tool by name.
 * A call through `call_tool` is checked against the found tool's input schema like any other call.
 */
import type { ClientPool, Tool } from '../index.js';
import type { ParsedCall, ToolSource } from './types.js';

/** The name of the tool that searches. */
export const SEARCH_TOOL_NAME = 'search_tools';
/** The name of the tool that calls a found tool. */
export const CALL_TOOL_NAME = 'call_tool';
/** Most matches one search returns to the model. */
const MAX_LIMIT = 20;

/** The two tools search mode offers, in MCP's shape (converted per provider like any tool). */
export const SEARCH_MODE_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOL_NAME,
    description:
      'Searches the available tools by what they do. Returns the best matches with their names, ' +
      'descriptions and input schemas; call one with call_tool. Search again with other words when none fits.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in a few words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          description: 'Most tools to return (default 5).',
        },
      },
      required: ['query'],
    },
  },
  {
    name: CALL_TOOL_NAME,
    description:
      'Calls a tool that search_tools found, by its name, with arguments matching its input schema.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The tool name search_tools returned.' },
        arguments: { type: 'object', description: "The tool's arguments, as its input schema describes." },
      },
      required: ['name', 'arguments'],
    },
  },
];

/** The tools each pool's searches returned, by name: what call_tool checks its arguments against. */
const found = new WeakMap<ToolSource, Map<string, Tool>>();

/** Whether `source` is a pool, which search mode needs. */
export function isPool(source: ToolSource): source is ClientPool {
  return typeof (source as Partial<ClientPool>).searchTools === 'function';
}

/** Whether `call` is one of search mode's tools (a pool tool of the same name wins). */
export function isSearchModeCall(source: ToolSource, name: string): boolean {
  return (
    (name === SEARCH_TOOL_NAME || name === CALL_TOOL_NAME) &&
    isPool(source) &&
    source.resolve(name) === undefined
  );
}

/** Runs search_tools: the matches as compact JSON text for the model. */
export async function runSearch(
  pool: ClientPool,
  args: Record<string, unknown>,
  offered: (name: string) => boolean,
): Promise<string> {
  const { query, limit = 5 } = args;
  if (typeof query !== 'string' || query.trim() === '')
    throw new Error('search_tools needs a "query" string: what the tool should do');
  const wanted =
    typeof limit === 'number' && Number.isSafeInteger(limit) ? Math.min(Math.max(limit, 1), MAX_LIMIT) : 5;
  const matches = (await pool.searchTools(query, { limit: MAX_LIMIT }))
    .filter((m) => offered(m.name))
    .slice(0, wanted);
  const known = found.get(pool) ?? new Map<string, Tool>();
  found.set(pool, known);
  for (const match of matches) {
    known.set(match.name, {
      name: match.name,
      ...(match.description !== undefined && { description: match.description }),
      inputSchema: match.inputSchema,
    });
  }
  if (matches.length === 0) return `No tool matches "${query}". Search again with other words.`;
  return JSON.stringify(
    matches.map((match) => ({
      name: match.name,
      description: match.description ?? match.title ?? '',
      inputSchema: match.inputSchema,
    })),
  );
}

/** call_tool's arguments as the call of the found tool, or why not. */
export function foundToolCall(
  pool: ClientPool,
  call: ParsedCall,
  args: Record<string, unknown>,
): { call: ParsedCall; tool: Tool | undefined } | { error: string } {
  if (typeof args.name !== 'string')
    return { error: 'call_tool needs the "name" of a tool search_tools returned' };
  let value = args.arguments ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { error: 'call_tool\'s "arguments" must be a JSON object' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'call_tool\'s "arguments" must be a JSON object' };
  return {
    call: { id: call.id, name: args.name, arguments: { value: value as Record<string, unknown> } },
    tool: found.get(pool)?.get(args.name),
  };
}
