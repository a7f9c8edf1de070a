// The report's groups: one table and one chart each, named as `npm run bench -- --only <group>`
// names them, in the order BENCHMARKS.md shows them.

export interface GroupInfo {
  /** The `--only` name; also the chart's file name, bench/charts/<id>.svg. */
  readonly id: string;
  /** The section heading. */
  readonly heading: string;
  /** One sentence under the heading: what the rows measure. */
  readonly about: string;
}

export const GROUPS: readonly GroupInfo[] = [
  {
    id: 'throughput',
    heading: 'stdio, legacy era: calls and large results',
    about:
      'Sequential calls (one at a time: the rate is 1 / latency), 256 calls in flight, and results of 1 and 8 MiB, each client connected to its own legacy server.',
  },
  {
    id: 'modern',
    heading: 'stdio, modern era: calls and large results',
    about:
      'The same workloads against a modern (server/discover) server; the official 2.x client with `versionNegotiation: auto`, the official 1.x client does not speak this era.',
  },
  {
    id: 'connect',
    heading: 'stdio connect',
    about:
      'Spawn to ready (the handshake done, one echo answered), a fresh server per sample, against a legacy, a modern, a -32601 and a silent server.',
  },
  {
    id: 'close',
    heading: 'stdio close',
    about: '`close()` until the server process is gone, the server honouring stdin EOF.',
  },
  {
    id: 'http',
    heading: 'HTTP: calls and large results',
    about:
      'Streamable HTTP against one loopback server, both eras: sequential calls, 256 in flight, 1 MiB results as JSON and as SSE.',
  },
  {
    id: 'http-connect',
    heading: 'HTTP connect',
    about: 'A connect over loopback HTTP (about a millisecond), many samples after a long warm-up.',
  },
  {
    id: 'many',
    heading: 'Many servers, one client each',
    about:
      '100 servers from one client process, each client in a fresh process: time to all ready, the process RSS, the heap per server.',
  },
  {
    id: 'pool',
    heading: 'Many servers, ClientPool',
    about:
      '100 servers from one ClientPool against the raw floor spawning the same processes: time to all ready, heap per server, close.',
  },
  {
    id: 'flood',
    heading: 'Memory: a server that never reads',
    about:
      'Requests of 64 KiB written to a server that stopped reading: the client process peak RSS growth (the write queue bound).',
  },
  {
    id: 'http-memory',
    heading: 'Memory: HTTP over a long run',
    about: 'Heap growth over 100,000 HTTP calls, 256 in flight (conduit-mcp alone: a leak check).',
  },
  {
    id: 'tool-search',
    heading: 'Tool search',
    about:
      '`pool.searchTools` over 10,000 tools of 200 lazy servers known from the manifest (never started): the median of one search; the spread is that of the medians of runs of 50 searches.',
  },
  {
    id: 'gateway',
    heading: 'conduit-mcp serve (the gateway)',
    about:
      "conduit-mcp's Client direct to a server (the raw column) and through `conduit-mcp serve` over stdio and HTTP: sequential echo calls and 32 in flight, to the template server and to an echo on the official server SDK; the same through a byte relay that parses nothing (the floor of any process in between), and over HTTP through a bare HTTP front that parses each message once and checks nothing; and the gateway's RSS with 50 stdio servers. Every sample is timed after 3,000 calls on its connection (500 over HTTP), direct and gateway alike: the gateway is a long-lived process, and a fresh one runs its path unoptimised for its first thousands of calls.",
  },
  {
    id: 'framing',
    heading: 'Framing, in process',
    about:
      'Our line framer against the official ReadBuffer on the same bytes, without pipes (no raw floor: the official reader is the reference).',
  },
];

/**
 * The group of a row, from its scenario id, for results written before rows carried their group
 * (bench/results/ of 2026-12-05 and earlier).
 */
export function groupOfScenario(id: string): string {
  if (id.startsWith('connect-http-')) return 'http-connect';
  if (id.startsWith('heap-http-')) return 'http-memory';
  if (/-http-(legacy|modern)$/.test(id)) return 'http';
  if (id.startsWith('connect-')) return 'connect';
  if (id === 'close' || id.startsWith('close-')) return 'close';
  if (id.startsWith('flood-')) return 'flood';
  if (id.startsWith('many-')) return 'many';
  if (id.startsWith('pool-')) return 'pool';
  if (id.startsWith('framing')) return 'framing';
  if (id.endsWith('-modern')) return 'modern';
  return 'throughput';
}
