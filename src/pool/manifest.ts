import type { Tool } from '../protocol/results.js';
import { readJsonFile, updateJsonFile } from './state-files.js';

interface ManifestContents {
  readonly version: 1;
  /** Each server's tools as it last listed them (its own names), and when. */
  readonly servers: Record<string, { readonly tools: Tool[]; readonly listedAt: string }>;
}

/**
 * The tools each server of a pool listed on an earlier run, kept in one file per config (see
 * poolStateFile), so a lazy server that has not started in this process can still be searched, and
 * started on its first call. Read once; each list that differs from the file's is written through.
 * A file that cannot be read or written costs search only those servers' tools, never a call.
 */
export class ToolManifest {
  readonly file: string;
  readonly #servers: () => readonly string[];
  #known: Record<string, { tools: Tool[]; listedAt: string }> = {};
  #loaded: Promise<void> | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(file: string, servers: () => readonly string[]) {
    this.file = file;
    this.#servers = servers;
  }

  /** Reads the file, once. Never rejects. */
  load(): Promise<void> {
    this.#loaded ??= readJsonFile(this.file).then(
      (value) => {
        const contents = value as Partial<ManifestContents> | undefined;
        if (contents?.version !== 1 || typeof contents.servers !== 'object' || contents.servers === null)
          return;
        // What this process listed before the file was read is newer.
        this.#known = { ...contents.servers, ...this.#known };
      },
      () => {},
    );
    return this.#loaded;
  }

  /** The tools `server` listed last (in this run or an earlier one), if known. */
  tools(server: string): Tool[] | undefined {
    return this.#known[server]?.tools;
  }

  /** A server listed its tools: kept, and written to the file when they differ from it. */
  record(server: string, tools: Tool[]): void {
    const before = this.#known[server];
    if (before !== undefined && JSON.stringify(before.tools) === JSON.stringify(tools)) return;
    const entry = { tools, listedAt: new Date().toISOString() };
    this.#known[server] = entry;
    const servers = this.#servers();
    this.#writes = this.#writes.then(() =>
      updateJsonFile(this.file, (current) => {
        const previous = (current as Partial<ManifestContents> | undefined)?.servers ?? {};
        const kept = Object.fromEntries(Object.entries(previous).filter(([name]) => servers.includes(name)));
        return { version: 1, servers: { ...kept, [server]: entry } } satisfies ManifestContents;
      }).catch(() => {}),
    );
  }

  /** Resolves when every write so far is done. */
  flushed(): Promise<void> {
    return this.#writes;
  }
}
