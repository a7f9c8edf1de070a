// What an HTTP bench client is: it connects to the one HTTP bench server (bench/http-server.mjs) in
// the era it is told, and gives back the same BenchConnection the stdio clients do, whose pid is
// the server's (so the throughput samples measure how busy the server was).
import type { BenchConnection, ClientId } from '../types.js';

export type HttpEra = 'legacy' | 'modern';

/** The running HTTP bench server. */
export interface HttpBenchServer {
  readonly url: string;
  readonly pid: number;
}

export interface HttpClientKind {
  readonly id: ClientId;
  readonly label: string;
  /** Loads the library (the timed scenarios do it first). */
  load(): Promise<unknown>;
  connect(server: HttpBenchServer, era: HttpEra): Promise<BenchConnection>;
}

/** Long enough for an 8 MiB answer on a loaded machine; every client gets the same. */
export const HTTP_REQUEST_TIMEOUT_MS = 120_000;
