// The official 1.x client: `@modelcontextprotocol/sdk` (Client + StdioClientTransport), legacy era.
import { connectOfficial } from './official.js';
import { CLIENT_INFO, type ClientKind, once, packageVersion, serverArgs } from './types.js';

export const SDK1_VERSION = packageVersion('@modelcontextprotocol/sdk');

const loadSdk1 = once(async () => {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
  ]);
  return { Client, StdioClientTransport };
});

export const sdk1: ClientKind = {
  id: 'sdk1',
  label: `official 1.x (sdk ${SDK1_VERSION})`,
  mode: 'legacy',
  load: loadSdk1,
  async connect(spec) {
    const { Client, StdioClientTransport } = await loadSdk1();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(spec),
      stderr: 'inherit',
    });
    return connectOfficial(new Client(CLIENT_INFO), transport);
  },
};
