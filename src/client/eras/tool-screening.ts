import { channels } from '../../diagnostics.js';
import { checkToolHeaders } from '../../protocol/tool-headers.js';
import type { Transport } from '../../transport/transport.js';

/**
 * Whether the transport mirrors `x-mcp-header` arguments into request headers: the HTTP binding
 * does (`Mcp-Param-*`), so a tool whose annotations are invalid cannot be called correctly there;
 * stdio has no headers and keeps such tools.
 */
export function mirrorsToolHeaders(transport: Transport): boolean {
  return transport.kind === 'http';
}

/**
 * Leaves out of a tools/list result (in place) each tool whose `x-mcp-header` annotations are
 * invalid: a warning (CONDUIT_INVALID_TOOL_HEADER) and `conduit-mcp:transport:tool-rejected` each.
 */
export function screenTools(result: unknown, server: string): void {
  const listed = result as { tools?: unknown } | null;
  if (!Array.isArray(listed?.tools)) return;
  listed.tools = listed.tools.filter((tool: { name?: unknown; inputSchema?: unknown } | null) => {
    const check = checkToolHeaders(tool?.inputSchema);
    if (check.ok) return true;
    const name = String(tool?.name);
    if (channels.toolRejected.hasSubscribers)
      channels.toolRejected.publish({ server, tool: name, reason: check.reason });
    process.emitWarning(
      `${server ? `${server}: ` : ''}tool ${JSON.stringify(name)} left out of tools/list: ${check.reason}`,
      { code: 'CONDUIT_INVALID_TOOL_HEADER' },
    );
    return false;
  });
}
