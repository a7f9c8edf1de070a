// Connect: spawn -> ready, a server per sample, for a legacy server, a modern one, a legacy one
// that answers -32601 to the probe and one silent to it. The answer to one echo is checked
// (untimed); then the server is stopped and reaped before the next sample.
import { setTimeout as sleep } from 'node:timers/promises';
import { CLIENTS, type ClientId, type ServerSpec } from '../clients/index.js';
import { killStrayServers } from '../core/processes.js';
import { type Bench, errorText, perClient, rotate, type Scenario, settleAfter } from '../core/runner.js';
import { type Figures, summarise } from '../core/stats.js';
import { atMostRaw, info, type RowSpec } from '../core/targets.js';
import { echoOnce } from './workloads.js';

/** conduit-mcp's default probe timeout, which the silent server's target refers to. */
const PROBE_TIMEOUT_MS = 3000;
/** How long the official 2.x client's default probe (60 s) is given on a silent server. */
const SILENT_CAP_MS = 10_000;

interface ConnectPlan {
  readonly id: string;
  readonly title: string;
  readonly server: ServerSpec;
  readonly clients: ClientId[];
  readonly warmup: number;
  readonly runs: number;
  /** Fewer runs for slow clients. */
  readonly runsFor?: Partial<Record<ClientId, number>>;
  /** Give up waiting after this long and report "> cap". */
  readonly capFor?: Partial<Record<ClientId, number>>;
}

async function connectSample(id: ClientId, server: ServerSpec, capMs?: number) {
  const started = performance.now();
  const pending = CLIENTS[id].connect(server);
  pending.catch(() => {});
  const connection =
    capMs === undefined ? await pending : await Promise.race([pending, sleep(capMs).then(() => undefined)]);
  const ms = performance.now() - started;
  if (!connection) {
    // Capped: stop the probe's process; the client then falls back to initialize on a new one.
    await killStrayServers();
    const late = await Promise.race([pending.catch(() => undefined), sleep(15_000).then(() => undefined)]);
    await late?.close().catch(() => {});
    await settleAfter(late?.pid);
    return { ms, capped: true };
  }
  await echoOnce(connection, 0);
  const pid = connection.pid;
  await connection.close();
  await settleAfter(pid);
  return { ms, capped: false };
}

async function connectScenario(bench: Bench, plan: ConnectPlan, ...rows: RowSpec[]): Promise<void> {
  const clients = bench.pick(plan.clients);
  bench.log(`${plan.title}: ${clients.join(', ')} ...`);
  const samples = perClient<number>(clients);
  const invalid = perClient<string>(clients);
  const capped = new Set<ClientId>();
  const rounds = Math.max(plan.runs, ...Object.values(plan.runsFor ?? {}));
  for (let round = -plan.warmup; round < rounds; round++) {
    for (const id of rotate(clients, Math.max(0, round))) {
      const runs = plan.runsFor?.[id] ?? plan.runs;
      if (round >= runs || (round < 0 && plan.capFor?.[id] !== undefined)) continue;
      try {
        const sample = await connectSample(id, plan.server, plan.capFor?.[id]);
        if (round < 0) continue;
        samples.get(id)!.push(sample.ms);
        if (sample.capped) capped.add(id);
      } catch (error) {
        invalid.get(id)!.push(errorText(error));
        await settleAfter(undefined);
      }
    }
  }
  const figures: Partial<Record<ClientId, Figures>> = {};
  for (const id of clients) {
    figures[id] = summarise(samples.get(id)!, invalid.get(id)!, { capped: capped.has(id) });
  }
  bench.record({ id: plan.id, title: plan.title, unit: 'ms', better: 'lower', figures, notes: [] }, ...rows);
}

const PROBING = { raw: 'raw', conduit: 'conduit', sdk2auto: 'sdk2-auto' } as const;

export const connect: Scenario = {
  group: 'connect',
  async run(bench) {
    // Spawning is the noisiest thing measured here: five times the samples.
    const runs = bench.quick ? 1 : bench.runs * 5;
    const warmup = bench.quick ? 0 : 1;
    await connectScenario(
      bench,
      {
        id: 'connect-legacy',
        title: 'connect, legacy server (spawn -> ready)',
        server: { mode: 'legacy' },
        clients: ['raw', 'conduit-legacy', 'sdk1', 'sdk2'],
        warmup,
        runs,
      },
      {
        columns: { raw: 'raw', conduit: 'conduit-legacy', sdk1: 'sdk1', sdk2: 'sdk2' },
        check: atMostRaw(1.1),
      },
    );
    await connectScenario(
      bench,
      {
        id: 'connect-modern',
        title: 'connect, modern server (auto)',
        server: { mode: 'modern' },
        clients: ['raw', 'conduit', 'sdk2-auto'],
        warmup,
        runs,
      },
      { columns: PROBING, check: atMostRaw(1.1) },
    );
    await connectScenario(
      bench,
      {
        id: 'connect-32601',
        title: 'connect, legacy server answering -32601 to the probe (auto)',
        server: { mode: 'legacy' },
        clients: ['raw', 'conduit', 'sdk2-auto'],
        warmup,
        runs,
      },
      { columns: PROBING, check: atMostRaw(1.15) },
    );
    // --quick: the official 2.x default (a 60 s probe) is left out; the 3 s probe stands for it.
    await connectScenario(
      bench,
      {
        id: 'connect-silent',
        title: 'connect, legacy server silent on unknown methods (auto)',
        server: { mode: 'legacy-silent' },
        clients: bench.quick
          ? ['raw', 'conduit', 'sdk2-auto-3s']
          : ['raw', 'conduit', 'sdk2-auto', 'sdk2-auto-3s'],
        warmup: 0,
        runs: bench.quick ? 1 : 3,
        runsFor: bench.quick ? {} : { 'sdk2-auto': 1 },
        capFor: { 'sdk2-auto': SILENT_CAP_MS },
      },
      {
        columns: PROBING,
        noRawRatio: true,
        check: (row) => ({
          target: `<= probeTimeout + 250 ms (${PROBE_TIMEOUT_MS + 250})`,
          met: (row.cells.conduit?.figures.median ?? Number.NaN) <= PROBE_TIMEOUT_MS + 250,
        }),
      },
      {
        columns: { conduit: 'conduit', sdk2auto: 'sdk2-auto-3s' },
        check: info,
        title: `connect, silent legacy server (auto), official 2.x given probe.timeoutMs ${PROBE_TIMEOUT_MS}`,
      },
    );
  },
};
