// Every scenario of `npm run bench`, in the order they run. Adding one: a file in this folder that
// exports a Scenario (close.ts is a small example), and a line here; its group name is what
// `--only` selects it by.
import type { Scenario } from '../core/runner.js';
import { close } from './close.js';
import { connect } from './connect.js';
import { floodScenario } from './flood.js';
import { framing } from './framing.js';
import { gateway } from './gateway.js';
import { httpConnect } from './http/connect.js';
import { httpMemory } from './http/memory.js';
import { httpThroughput } from './http/throughput.js';
import { many } from './many.js';
import { pool } from './pool.js';
import { legacyThroughput, modernThroughput } from './throughput.js';
import { toolSearch } from './tool-search.js';

export const SCENARIOS: readonly Scenario[] = [
  legacyThroughput,
  modernThroughput,
  connect,
  close,
  floodScenario,
  many,
  pool,
  framing,
  httpThroughput,
  httpConnect,
  httpMemory,
  toolSearch,
  gateway,
];
