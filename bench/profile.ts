// Summarises a V8 CPU profile (from `node --cpu-prof`): where the time goes, by function and by
// file, self time. Used for the profiles quoted in BENCHMARKS.md.
//
//   node --cpu-prof --cpu-prof-dir=.tmp/prof --import tsx bench/run.ts --only throughput \
//     --clients conduit --workloads bytes-1m --no-write
//   node --import tsx bench/profile.ts .tmp/prof/<file>.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function where(url: string): string {
  if (!url) return '(native)';
  const file = url.replace(/^file:\/\//, '');
  const inModules = file.lastIndexOf('node_modules/');
  if (inModules !== -1) return file.slice(inModules + 'node_modules/'.length);
  const cwd = `${process.cwd()}${path.sep}`;
  return file.startsWith(cwd) ? file.slice(cwd.length) : file;
}

export function summariseProfile(file: string, top = 25): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName || '(anonymous)';
    const key = frame.url ? `${name} ${where(frame.url)}:${frame.lineNumber + 1}` : name;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const fileKey = frame.url ? where(frame.url) : name.startsWith('(') ? name : '(native)';
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
  }
  const percent = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`;
  const lines = [
    `${path.basename(file)}: ${(total / 1000).toFixed(0)} ms profiled, self time`,
    '',
    'by function:',
  ];
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`${percent(us)} ${ms(us)}  ${key}`);
  }
  lines.push('', 'by file:');
  for (const [key, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`${percent(us)} ${ms(us)}  ${key}`);
  }
  return lines;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
for (const file of positionals) console.log(summariseProfile(file, Number(values.top)).join('\n'), '\n');
