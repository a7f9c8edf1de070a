import { ClientPool, type ServerStatus } from '../index.js';
import type { CliArguments } from './args.js';
import { loadCliConfig } from './config.js';
import { configInputs } from './config-input.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';
import { oneLine, table, toolsTable } from './render.js';
import type { TextPolicy } from './sanitize.js';

/** `servers`, and `tools --config` without `--server`: every server of the file, as one pool. */
export function usesPool(cli: CliArguments): boolean {
  return (
    cli.command === 'servers' ||
    (cli.command === 'tools' && cli.config !== undefined && cli.server === undefined)
  );
}

export async function runPoolCommand(cli: CliArguments, output: Output): Promise<number> {
  const file = cli.config!;
  loadCliConfig(file, output.err); // the file's own problems and warnings, once, before anything starts
  await using pool = ClientPool.fromConfigFile(file, {
    input: configInputs(file),
    client: {
      requestTimeout: cli.timeout ?? 60_000,
      reconnect: { maxReconnects: 0 },
      ...(cli.protocol ? { protocol: cli.protocol as 'auto' } : {}),
    },
    ...(cli.timeout ? { startTimeout: cli.timeout } : {}),
  });
  await pool.connect();
  const print = (human: () => string, json: unknown) =>
    output.out(cli.json ? JSON.stringify(json, null, 2) : human());
  if (cli.command === 'servers') {
    await pool.listTools().catch(() => undefined); // fills the tool counts; a collision is not this command's concern
    const status = pool.status();
    print(() => statusTable(output.policy, status), status.map(statusJson));
    return status.every((s) => s.state === 'ready' || s.state === 'disabled') ? EXIT.ok : EXIT.serverDown;
  }
  const { tools } = await pool.listTools();
  for (const s of pool.status()) {
    if (s.state !== 'ready' && s.state !== 'disabled') {
      output.err(
        `conduit-mcp: ${s.name} is ${s.state}: ${output.policy.line(s.error?.message ?? 'no error')}`,
      );
    }
  }
  print(
    () => toolsTable(output.policy, tools),
    tools.map(({ name, server, originalName, description, inputSchema }) => ({
      name,
      server,
      originalName,
      description,
      inputSchema,
    })),
  );
  return EXIT.ok;
}

function statusTable(policy: TextPolicy, status: ServerStatus[]): string {
  return table(
    ['SERVER', 'STATE', 'ERA', 'TOOLS', 'ERROR'],
    status.map((s) => [
      oneLine(policy, s.name, 30),
      s.state,
      s.era ?? '-',
      s.toolCount === undefined ? '-' : String(s.toolCount),
      oneLine(policy, s.error?.message ?? '', 100),
    ]),
  );
}

function statusJson(s: ServerStatus) {
  return {
    name: s.name,
    state: s.state,
    era: s.era ?? null,
    toolCount: s.toolCount ?? null,
    pid: s.pid ?? null,
    url: s.url ?? null,
    error: s.error?.message ?? null,
    restarts: s.restarts,
  };
}
