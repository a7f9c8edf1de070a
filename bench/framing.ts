// The framing benchmark alone (issue 4): our Framer against the official SDK's ReadBuffer, same
// process, same 64 KiB chunks, bytes in -> parsed, validated JSON-RPC messages out. Prints its tables
// and writes bench/results/framing-<timestamp>.json. bench/run.ts runs the same as its framing group.
//
//   node --import tsx bench/framing.ts [--runs N] [--official-64-runs N] [--official-64-limit S]
//                                      [--cases small,1,8,64] [--no-write]
import { parseArgs } from 'node:util';
import { type FramingCaseName, runFramingBench } from './framing/index.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    'official-64-runs': { type: 'string' },
    'official-64-limit': { type: 'string' },
    cases: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const cases = values.cases?.split(',').map((name) => {
  if (!['small', '1', '8', '64'].includes(name)) throw new Error(`--cases: unknown case ${name}`);
  return name as FramingCaseName;
});
await runFramingBench({
  runs: number(values.runs),
  official64MiBRuns: number(values['official-64-runs']),
  official64MiBTimeLimitMs:
    values['official-64-limit'] === undefined ? undefined : Number(values['official-64-limit']) * 1000,
  cases,
  write: !values['no-write'],
});
