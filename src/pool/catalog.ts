import type { Tool } from '../protocol/results.js';
import { ToolNotTrustedError } from './errors.js';
import { ToolManifest } from './manifest.js';
import type { PoolMember } from './member.js';
import { poolName } from './names.js';
import { findNamed } from './namespace.js';
import type { ResolvedPoolOptions } from './options.js';
import { type PinPolicy, ToolPins, type ToolsChangedEvent, type ToolTrust } from './pins.js';
import { manifestOwner, type SearchCache, searchCandidates, type ToolSearchMatch } from './search.js';

/**
 * A pool's knowledge of its tools beyond the live lists: the manifest (for search and lazy starts),
 * the search index, and the pins (trust on first use). Each list a server sends comes here.
 */
export class PoolCatalog {
  readonly manifest: ToolManifest | undefined;
  readonly pins: ToolPins | undefined;
  readonly #members: readonly PoolMember[];
  readonly #options: ResolvedPoolOptions;
  readonly #emit: (event: ToolsChangedEvent) => void;
  #searchCache: SearchCache | undefined;
  #checks: Promise<void> = Promise.resolve();

  constructor(
    members: readonly PoolMember[],
    options: ResolvedPoolOptions,
    emit: (event: ToolsChangedEvent) => void,
  ) {
    this.#members = members;
    this.#options = options;
    this.#emit = emit;
    const servers = () => members.map((member) => member.name);
    this.manifest = options.manifest === undefined ? undefined : new ToolManifest(options.manifest, servers);
    const pinning = options.pinning;
    this.pins = pinning === undefined ? undefined : new ToolPins(pinning.policy, pinning.file);
  }

  /** A server listed its tools: kept in the manifest, compared with the pins. */
  listed(server: string, tools: Tool[]): void {
    this.manifest?.record(server, tools);
    const pins = this.pins;
    if (pins === undefined) return;
    const name = (tool: string) => poolName(server, tool, this.#options.names);
    this.#checks = this.#checks.then(async () => {
      const event = await pins.check(server, tools, name);
      if (event === undefined) return;
      this.#emit(event);
      if (pins.policy === 'warn' && event.changed.length > 0) {
        const what = event.changed.map((c) => `${c.name} (${c.fields.join(', ')})`).join('; ');
        process.emitWarning(`${server}: tools changed since they were pinned: ${what}`, {
          code: 'CONDUIT_MCP_TOOLS_CHANGED',
        });
      }
    });
  }

  async search(query: string, limit: number): Promise<ToolSearchMatch[]> {
    await this.manifest?.load();
    const members = this.#members;
    await Promise.all(members.filter((member) => !member.lazy).map((member) => member.start()));
    await Promise.all(members.map((member) => member.fresh('tools')));
    await this.#checks;
    const found = searchCandidates(members, this.#options, this.manifest, this.#searchCache, query, limit);
    this.#searchCache = found.cache;
    return found.matches;
  }

  /**
   * Before a call of pool tool `name`: starts the lazy server the manifest says has it, and with
   * pinning, brings its list up to date and refuses a held tool (ToolNotTrustedError).
   */
  async beforeCall(name: string): Promise<void> {
    await this.manifest?.load();
    const owner = manifestOwner(this.#members, this.#options, this.manifest, name);
    if (owner?.state === 'idle') {
      await owner.start();
      await owner.fresh('tools');
    }
    if (this.pins === undefined) return;
    const found = findNamed(this.#members, this.#options, 'tool', name);
    if (found === undefined || found instanceof Error) return;
    await found.member.fresh('tools');
    await this.#checks;
    const trust = this.pins.trust(found.member.name, found.originalName);
    if (trust !== 'trusted') throw new ToolNotTrustedError(found.member.name, name, trust, this.pins.policy);
  }

  /** Where pool tool `name` stands under pinning (`trusted` without pinning, or for an unknown name). */
  trust(name: string): ToolTrust {
    const found = findNamed(this.#members, this.#options, 'tool', name);
    if (this.pins === undefined || found === undefined || found instanceof Error) return 'trusted';
    return this.pins.trust(found.member.name, found.originalName);
  }

  /** Approves a tool awaiting approval; false when it is not held, or blocked. */
  async approve(name: string): Promise<boolean> {
    await this.#checks;
    const found = findNamed(this.#members, this.#options, 'tool', name);
    if (this.pins === undefined || found === undefined || found instanceof Error) return false;
    return this.pins.approve(found.member.name, found.originalName);
  }

  /** Resolves when the lists received so far are compared with the pins. */
  checked(): Promise<void> {
    return this.#checks;
  }

  /** Resolves when the manifest and pin writes so far are done. */
  async flushed(): Promise<void> {
    await this.#checks;
    await Promise.all([this.manifest?.flushed(), this.pins?.flushed()]);
  }
}

export type { PinPolicy };
