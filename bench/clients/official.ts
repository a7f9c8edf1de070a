// What both official clients (1.x and 2.x) have in common, as far as the bench uses them.
import { type BenchConnection, textOf } from './types.js';

export interface OfficialClient {
  onclose?: (() => void) | undefined;
  connect(transport: never): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects an official client over its stdio transport and wraps it as a BenchConnection. */
export async function connectOfficial(
  client: OfficialClient,
  transport: { pid: number | null },
): Promise<BenchConnection> {
  let closedBecause: string | undefined;
  client.onclose = () => {
    closedBecause ??= 'closed';
  };
  await client.connect(transport as never);
  return {
    pid: transport.pid ?? undefined,
    get closedBecause() {
      return closedBecause;
    },
    async call(name, args) {
      return textOf(await client.callTool({ name, arguments: args }));
    },
    close: () => client.close(),
  };
}
