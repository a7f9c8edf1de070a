// CPU time per call, for before/after comparisons on a loaded machine: this process's user + system
// CPU time (process.cpuUsage) per call is far less distorted by other load than the rate is; on
// Linux also its main thread's part (the rest is V8's GC and compiler threads).
// Clients alternate in rounds (order rotating), each round one sequential and one in-flight sample.
//
//   node --import tsx bench/cpu.ts [--era modern|legacy] [--clients raw,conduit] [--rounds 10]
//                                  [--calls 5000] [--in-flight-calls 20000]
//                                  [--workloads sequential,in-flight] [--pin cpu|off]
//                                  [--transport stdio|http]
// --transport http: the clients over HTTP to one HTTP bench server (bench/http-server.mjs);
// `conduit-baseline` is then the BENCH_CONDUIT_BASELINE build over HTTP.
// --pin: as in npm run bench, the sequential samples run client and server on that CPU (default 0).
import { parseArgs } from 'node:util';
import { httpClient } from './clients/http/index.js';
import { CLIENTS, type ClientId } from './clients/index.js';
import type { BenchConnection } from './clients/types.js';
import { parsePin } from './core/pin.js';
import { killStrayServers } from './core/processes.js';
import { rotate } from './core/runner.js';
import { summarise } from './core/stats.js';
import { withHttpServer } from './scenarios/http/server.js';
import { timeSample } from './scenarios/throughput.js';
import { inFlight, sequential } from './scenarios/workloads.js';

const { values } = parseArgs({
  options: {
    era: { type: 'string', default: 'modern' },
    clients: { type: 'string', default: 'raw,conduit' },
    rounds: { type: 'string', default: '10' },
    calls: { type: 'string', default: '5000' },
    'in-flight-calls': { type: 'string', default: '20000' },
    workloads: { type: 'string', default: 'sequential,in-flight' },
    pin: { type: 'string' },
    transport: { type: 'string', default: 'stdio' },
  },
});
const pin = parsePin(values.pin);
const mode = values.era === 'legacy' ? 'legacy' : 'modern';
const ids = values.clients.split(',') as ClientId[];
const chosen = new Set(values.workloads.split(','));
const workloads = [sequential(Number(values.calls)), inFlight(Number(values['in-flight-calls']), 256)].filter(
  (workload) => chosen.has(workload.id),
);

async function measure(connect: (id: ClientId) => Promise<BenchConnection>): Promise<void> {
  const connections = await Promise.all(ids.map(connect));
  const cpu = new Map(workloads.map((w) => [w.id, new Map(ids.map((id) => [id, [] as number[]]))]));
  const mainCpu = new Map(workloads.map((w) => [w.id, new Map(ids.map((id) => [id, [] as number[]]))]));
  const rates = new Map(workloads.map((w) => [w.id, new Map(ids.map((id) => [id, [] as number[]]))]));
  const rounds = Number(values.rounds);
  for (let round = -1; round < rounds; round++) {
    for (const workload of workloads) {
      for (const i of rotate(
        ids.map((_, i) => i),
        Math.max(0, round),
      )) {
        const sample = await timeSample(
          connections[i]!,
          workload,
          workload.id === 'sequential' ? pin : 'off',
        );
        if (round < 0) continue; // warm-up
        cpu.get(workload.id)!.get(ids[i]!)!.push(sample.cpuPerUnit);
        if (Number.isFinite(sample.mainCpuPerUnit))
          mainCpu.get(workload.id)!.get(ids[i]!)!.push(sample.mainCpuPerUnit);
        rates.get(workload.id)!.get(ids[i]!)!.push(sample.rate);
      }
    }
  }
  console.log(`${mode} era, ${rounds} rounds, CPU µs per call (median, min) and calls/s (median):`);
  for (const workload of workloads) {
    for (const id of ids) {
      const c = summarise(cpu.get(workload.id)!.get(id)!);
      const r = summarise(rates.get(workload.id)!.get(id)!);
      const main = mainCpu.get(workload.id)!.get(id)!;
      const mainText = main.length === 0 ? '' : `  main thread ${summarise(main).median.toFixed(2)} µs`;
      console.log(
        `  ${workload.id.padEnd(10)} ${id.padEnd(8)} ${c.median.toFixed(2).padStart(7)} µs  (min ${c.min.toFixed(2)})${mainText}  ${Math.round(r.median)} calls/s`,
      );
    }
  }
  await Promise.all(connections.map((c) => c.close()));
}

if (values.transport === 'http') {
  await withHttpServer(async (server) => {
    for (const id of ids) await httpClient(id).load();
    await measure((id) => httpClient(id).connect(server, mode));
  });
} else {
  for (const id of ids) if (!(id in CLIENTS)) throw new Error(`--clients: unknown client ${id}`);
  await measure((id) => CLIENTS[id].connect({ mode }));
}
await killStrayServers();
process.exit(0);
