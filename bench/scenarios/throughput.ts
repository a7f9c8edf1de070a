// Throughput, in each era: every client of the group connects to its own server, then each
// workload runs: one warm-up sample per client, then `runs` rounds in which every client takes one
// sample, in an order that rotates. Besides the rate: this process's CPU time per call (less
// distorted by other load on the machine than the rate) and how busy the server was.
import { type BenchConnection, CLIENTS, type ClientId, type ServerSpec } from '../clients/index.js';
import { type PinSetting, pinNote, pinToCpu } from '../core/pin.js';
import { killStrayServers, mainThreadCpuUs, processCpuMs, waitGone } from '../core/processes.js';
import { type Bench, errorText, perClient, rotate, type Scenario } from '../core/runner.js';
import { collectGarbage, type Figures, summarise } from '../core/stats.js';
import {
  atLeast,
  type Column,
  info,
  LEGACY_COLUMNS,
  MODERN_COLUMNS,
  type TargetCheck,
} from '../core/targets.js';
import { throughputWorkloads, type Workload } from './workloads.js';

interface Participant {
  readonly id: ClientId;
  connection?: BenchConnection;
  failure?: string;
}

/**
 * One sample: the rate (amount per second), this process's CPU time per unit (µs), and how busy
 * the server was (its CPU time / wall time, %: it must stay well under 100 to never be the bottleneck).
 * With a `pin`, this process and the server run on that one CPU for the sample (`pinned` says
 * whether they did).
 */
export async function timeSample(connection: BenchConnection, workload: Workload, pin: PinSetting = 'off') {
  collectGarbage?.();
  const unpin = pinToCpu(pin, connection.pid === undefined ? [] : [connection.pid]);
  try {
    return { ...(await measure(connection, workload)), pinned: unpin !== undefined };
  } finally {
    unpin?.();
  }
}

async function measure(connection: BenchConnection, workload: Workload) {
  const serverBefore = connection.pid === undefined ? undefined : processCpuMs(connection.pid);
  const cpu = process.cpuUsage();
  const mainBefore = mainThreadCpuUs();
  const started = performance.now();
  await workload.run(connection);
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const mainAfter = mainThreadCpuUs();
  const serverAfter = connection.pid === undefined ? undefined : processCpuMs(connection.pid);
  const serverBusy =
    serverBefore === undefined || serverAfter === undefined
      ? Number.NaN
      : ((serverAfter - serverBefore) / elapsedMs) * 100;
  return {
    rate: workload.amount / (elapsedMs / 1000),
    cpuPerUnit: (used.user + used.system) / workload.amount,
    /** The main thread's part of cpuPerUnit (NaN where it cannot be read). */
    mainCpuPerUnit:
      mainBefore === undefined || mainAfter === undefined
        ? Number.NaN
        : (mainAfter - mainBefore) / workload.amount,
    serverBusy,
  };
}

export interface Era {
  readonly clients: ClientId[];
  readonly server: ServerSpec;
  /** Connects a client another way than spawning `server` (HTTP); the server then outlives it. */
  readonly connect?: (id: ClientId) => Promise<BenchConnection>;
  /** Other workloads than the stdio ones. */
  readonly workloads?: (bench: Bench) => Workload[];
  /** Appended to each workload's id and title. */
  readonly idSuffix: string;
  readonly titleSuffix: string;
  readonly columns: Partial<Record<Column, ClientId>>;
  /** The target of each workload, by workload id. */
  readonly targets: Record<string, TargetCheck>;
}

export async function runEra(bench: Bench, era: Era): Promise<void> {
  const ids = bench.pick(era.clients);
  const participants: Participant[] = ids.map((id) => ({ id }));
  for (const participant of participants) {
    try {
      participant.connection = await (era.connect?.(participant.id) ??
        CLIENTS[participant.id].connect(era.server));
    } catch (error) {
      participant.failure = `connect failed: ${errorText(error)}`;
    }
  }
  for (const workload of (era.workloads ?? throughputWorkloads)(bench)) {
    if (bench.workloads && !bench.workloads.has(workload.id)) continue;
    const pinning = workload.id === 'sequential' ? bench.pin : 'off';
    let pinnedSamples = 0;
    bench.log(`${workload.title}${era.titleSuffix}: ${ids.join(', ')} ...`);
    const rates = perClient<number>(ids);
    const cpu = perClient<number>(ids);
    const mainCpu = perClient<number>(ids);
    const busy = perClient<number>(ids);
    const invalid = perClient<string>(ids);
    const take = async (participant: Participant, keep: boolean) => {
      try {
        if (!participant.connection) throw new Error(participant.failure ?? 'not connected');
        const value = await timeSample(participant.connection, workload, pinning);
        if (!keep) return;
        if (value.pinned) pinnedSamples++;
        rates.get(participant.id)!.push(value.rate);
        cpu.get(participant.id)!.push(value.cpuPerUnit);
        if (Number.isFinite(value.mainCpuPerUnit)) mainCpu.get(participant.id)!.push(value.mainCpuPerUnit);
        if (Number.isFinite(value.serverBusy)) busy.get(participant.id)!.push(value.serverBusy);
      } catch (error) {
        invalid.get(participant.id)!.push(errorText(error));
      }
    };
    if (!bench.quick) for (const participant of participants) await take(participant, false);
    for (let round = 0; round < bench.runs; round++) {
      for (const participant of rotate(participants, round)) await take(participant, true);
    }
    const figures: Partial<Record<ClientId, Figures>> = {};
    const cpuKey = workload.unit === 'calls/s' ? 'clientCpuUsPerCall' : 'clientCpuUsPerMiB';
    for (const id of ids) {
      figures[id] = summarise(rates.get(id)!, invalid.get(id)!, {
        extra: {
          [cpuKey]: Math.round(summarise(cpu.get(id)!).median * 10) / 10,
          ...(mainCpu.get(id)!.length > 0
            ? { [`${cpuKey}MainThread`]: Math.round(summarise(mainCpu.get(id)!).median * 10) / 10 }
            : {}),
          serverBusyPercent: Math.round(summarise(busy.get(id)!).median),
        },
      });
    }
    bench.record(
      {
        id: `${workload.id}${era.idSuffix}`,
        title: `${workload.title}${era.titleSuffix}`,
        unit: workload.unit,
        better: 'higher',
        figures,
        notes: pinNote(
          pinning,
          `${pinnedSamples} of ${ids.length * bench.runs} samples ran with the client and its server`,
          pinnedSamples > 0,
        ),
      },
      { columns: era.columns, check: era.targets[workload.id] ?? info },
    );
  }
  for (const participant of participants) {
    const pid = participant.connection?.pid;
    await participant.connection?.close().catch(() => {});
    if (pid !== undefined && !era.connect) await waitGone(pid);
  }
  if (!era.connect) await killStrayServers();
}

export const legacyThroughput: Scenario = {
  group: 'throughput',
  run: (bench) =>
    runEra(bench, {
      clients: ['raw', 'conduit', 'sdk1', 'sdk2'],
      server: { mode: 'legacy' },
      idSuffix: '',
      titleSuffix: '',
      columns: LEGACY_COLUMNS,
      targets: {
        sequential: atLeast(1.3, 0.95),
        'in-flight': atLeast(1.5, 0.8),
        'bytes-1m': atLeast(null, 0.8),
        'bytes-8m': atLeast(3, 0.8),
      },
    }),
};

export const modernThroughput: Scenario = {
  group: 'modern',
  run: (bench) =>
    runEra(bench, {
      clients: ['raw', 'conduit', 'sdk2-auto'],
      server: { mode: 'modern' },
      idSuffix: '-modern',
      titleSuffix: ', modern server (auto)',
      columns: MODERN_COLUMNS,
      targets: {
        sequential: atLeast(null, 0.95),
        'in-flight': atLeast(null, 0.95),
        'bytes-1m': atLeast(null, 0.8),
        'bytes-8m': atLeast(null, 0.8),
      },
    }),
};
