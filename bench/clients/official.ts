// What both official clients (1.x and 2.x) have in common, as far as the bench uses them.
import { type BenchConnection, textOf } from './types.js';

export interface OfficialClient {
  onclose?: (() => void) | undefined;
  connect(transport: never): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Connects an official client over a transport and wraps it as a BenchConnection; `serverPid` is
 * the server's process when the transport has none of its own (HTTP).
 */
export async function connectOfficial(
  client: OfficialClient,
  transport: { pid?: number | null },
  serverPid?: number,
): Promise<BenchConnection> {
  let closedBecause: string | undefined;
  client.onclose = () => {
    closedBecause ??= 'closed';
  };
  await client.connect(transport as never);
  return {
    pid: serverPid ?? transport.pid ?? undefined,
    get closedBecause() {
      return closedBecause;
    },
    async call(name, args) {
      return textOf(await client.callTool({ name, arguments: args }));
    },
    close: () => client.close(),
  };
}
