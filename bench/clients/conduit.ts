// conduit-mcp: `Client` from src/index.ts, in the protocol mode given (the default is auto).
import type { ClientOptions, ProtocolMode } from '../../src/index.js';
import { CLIENT_INFO, type ClientId, type ClientKind, once, serverArgs, textOf } from './types.js';

const loadConduit = once(() => import('../../src/index.js'));

export function conduit(id: ClientId, label: string, protocol: ProtocolMode): ClientKind {
  return {
    id,
    label,
    mode: protocol,
    load: loadConduit,
    async connect(spec, options = {}) {
      const clientOptions: ClientOptions = {
        name: 'bench',
        clientInfo: CLIENT_INFO,
        protocol,
        transport: { type: 'stdio', command: process.execPath, args: serverArgs(spec) },
        ...(options.noReconnect ? { reconnect: { maxReconnects: 0 } } : {}),
      };
      const { Client } = await loadConduit();
      const client = new Client(clientOptions);
      let closedBecause: string | undefined;
      client.on('disconnected', (reason) => {
        closedBecause ??= reason.type;
      });
      await client.connect();
      return {
        pid: client.pid,
        get closedBecause() {
          return closedBecause;
        },
        async call(name, args) {
          return textOf(await client.callTool({ name, arguments: args }));
        },
        close: () => client.close(),
      };
    },
  };
}
