// What the memory per client holds: heap snapshots before and after connecting N clients (each to
// its own bench server), and the difference by kind and constructor, per client, largest first.
//
//   node --expose-gc --import tsx bench/heap.ts [--client conduit] [--count 50] [--top 30] [--detail]
//                                      [--keep dir]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { type BenchConnection, CLIENTS, type ClientId } from './clients/index.js';
import { killStrayServers } from './core/processes.js';
import { collectGarbage } from './core/stats.js';

const { values } = parseArgs({
  options: {
    client: { type: 'string', default: 'conduit' },
    count: { type: 'string', default: '50' },
    top: { type: 'string', default: '30' },
    detail: { type: 'boolean', default: false },
    keep: { type: 'string' },
  },
});
const id = values.client as ClientId;
if (!(id in CLIENTS)) throw new Error(`--client: unknown client ${id}`);
const count = Number(values.count);
/** --detail: strings and arrays by their text or name too. */
const DETAIL = values.detail;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count by "kind constructor" (objects by constructor name, the rest by kind). */
function bySize(file: string): Map<string, { size: number; count: number }> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const totals = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]!]!;
    const name = data.strings[data.nodes[i + nameAt]!]!;
    const key =
      type === 'object' || type === 'closure'
        ? `${type} ${name}`
        : DETAIL && (type === 'string' || type === 'concatenated string' || type === 'array')
          ? `${type} ${JSON.stringify(name.slice(0, 60))}`
          : type;
    const entry = totals.get(key) ?? { size: 0, count: 0 };
    entry.size += data.nodes[i + sizeAt]!;
    entry.count += 1;
    totals.set(key, entry);
  }
  return totals;
}

async function snapshot(directory: string, name: string): Promise<string> {
  for (let i = 0; i < 3; i++) {
    collectGarbage?.();
    await sleep(100);
  }
  return v8.writeHeapSnapshot(path.join(directory, `${name}.heapsnapshot`));
}

// --keep <dir>: the two snapshots are kept there (for Chrome DevTools' comparison view).
const directory = values.keep ?? mkdtempSync(path.join(os.tmpdir(), 'conduit-heap-'));
try {
  // Warm-up: loading, compiling and first-use costs paid before the baseline.
  for (let round = 0; round < 3; round++) {
    const warm = await Promise.all(Array.from({ length: 5 }, () => CLIENTS[id].connect({ mode: 'legacy' })));
    await Promise.all(warm.map((c) => c.call('echo', { text: 'warm' })));
    await Promise.all(warm.map((c) => c.close()));
    await killStrayServers();
  }
  // Both snapshots first: what parsing one keeps alive must not land in the other.
  const beforeFile = await snapshot(directory, 'before');
  const connections: BenchConnection[] = [];
  for (let i = 0; i < count; i++) connections.push(await CLIENTS[id].connect({ mode: 'legacy' }));
  await Promise.all(connections.map((c, i) => c.call('echo', { text: `server ${i}` })));
  const afterFile = await snapshot(directory, 'after');
  const before = bySize(beforeFile);
  const after = bySize(afterFile);
  const rows = [...after].map(([key, a]) => {
    const b = before.get(key) ?? { size: 0, count: 0 };
    return { key, bytes: (a.size - b.size) / count, objects: (a.count - b.count) / count };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  console.log(
    `${CLIENTS[id].label}: ${count} clients, heap per client ${(total / 1024).toFixed(1)} KiB (self sizes, snapshot difference)`,
  );
  for (const row of rows.slice(0, Number(values.top))) {
    console.log(
      `${(row.bytes / 1024).toFixed(2).padStart(8)} KiB ${row.objects.toFixed(1).padStart(7)} objects  ${row.key}`,
    );
  }
  await Promise.all(connections.map((c) => c.close()));
} finally {
  if (!values.keep) rmSync(directory, { recursive: true, force: true });
  await killStrayServers();
}
process.exit(0);
