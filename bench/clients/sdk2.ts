// The official 2.x client: `@modelcontextprotocol/client`, in its default legacy mode or with
// `versionNegotiation: { mode: 'auto' }` (optionally with a probe timeout).
import { connectOfficial } from './official.js';
import { CLIENT_INFO, type ClientId, type ClientKind, once, packageVersion, serverArgs } from './types.js';

export const SDK2_VERSION = packageVersion('@modelcontextprotocol/client');

const loadSdk2 = once(async () => {
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  return { Client, StdioClientTransport };
});

export function sdk2(
  id: ClientId,
  label: string,
  mode: 'legacy' | 'auto',
  probeTimeoutMs?: number,
): ClientKind {
  return {
    id,
    label,
    mode: probeTimeoutMs === undefined ? mode : `${mode}, probe ${probeTimeoutMs} ms`,
    load: loadSdk2,
    async connect(spec) {
      const { Client, StdioClientTransport } = await loadSdk2();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: serverArgs(spec),
        stderr: 'inherit',
      });
      const client = new Client(
        CLIENT_INFO,
        mode === 'auto'
          ? {
              versionNegotiation: {
                mode: 'auto',
                ...(probeTimeoutMs === undefined ? {} : { probe: { timeoutMs: probeTimeoutMs } }),
              },
            }
          : {},
      );
      return connectOfficial(client, transport);
    },
  };
}
