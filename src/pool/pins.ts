/**
 * Trust on first use: the fingerprint of every tool a server lists (see toolFingerprint) is pinned
 * the first time it is seen; a later list is compared with the pins, and the difference (tools
 * added, removed, changed with which fields, or carrying hidden characters) is reported, while the
 * policy decides whether a changed tool stays usable: `warn` (yes, re-pinned, with a warning),
 * `block` (never, until the pins are reset) or `reapprove` (not until the host approves it).
 */
import { createHash } from 'node:crypto';
import { findHiddenInTool } from '../hidden-characters.js';
import type { Tool } from '../protocol/results.js';
import { canonicalJson, FINGERPRINT_FIELDS, toolFingerprint } from './fingerprint.js';
import { readJsonFile, updateJsonFile } from './state-files.js';

/** What happens to a tool whose fingerprint changed since it was pinned. */
export type PinPolicy = 'warn' | 'block' | 'reapprove';

/** Where a tool stands: usable, or held by the policy. */
export type ToolTrust = 'trusted' | 'blocked' | 'awaiting_approval';

/** One server's tools that differ from their pins, by pool name. */
export interface ToolsChangedEvent {
  /** The server's name. */
  readonly server: string;
  /** The policy that decided. */
  readonly policy: PinPolicy;
  /** Tools seen for the first time (pinned now). */
  readonly added: readonly string[];
  /** Pinned tools the server no longer lists. */
  readonly removed: readonly string[];
  /** Tools whose fingerprint changed, each with the fields that differ and where it stands now. */
  readonly changed: ReadonlyArray<{
    /** The pool name. */ readonly name: string;
    /** The fingerprinted fields that differ, e.g. `['description']`. */ readonly fields: readonly string[];
    /** Usable (`warn`), or held until reset (`block`) or approval (`reapprove`). */ readonly trust: ToolTrust;
  }>;
  /**
   * Tools (added or changed) whose text holds characters a person cannot see but a model reads
   * (zero-width, bidirectional overrides, tag characters...), with the fields that hold them.
   * Under `block` and `reapprove` such a tool is held like a changed one.
   */
  readonly hidden: ReadonlyArray<{
    /** The pool name. */ readonly name: string;
    /** Where, e.g. `description` or `inputSchema/properties/q/description`. */ readonly fields: readonly string[];
  }>;
}

interface Pin {
  /** The fingerprint the host trusts. */
  fingerprint: string;
  /** A hash of each fingerprinted field, to say which changed. */
  fields: Record<string, string>;
  /** Set while the tool is held: the fingerprint it now has. */
  held?: { trust: 'blocked' | 'awaiting_approval'; fingerprint: string; fields: Record<string, string> };
  /** The server no longer lists it (the pin stays, so a tool coming back is compared with it). */
  gone?: boolean;
}

type ServerPins = Record<string, Pin>;

function fieldHashes(tool: Tool): Record<string, string> {
  const record = tool as unknown as Record<string, unknown>;
  return Object.fromEntries(
    FINGERPRINT_FIELDS.map((field) => [
      field,
      createHash('sha256').update(canonicalJson(record[field])).digest('hex').slice(0, 16),
    ]),
  );
}

/** The pins of one pool, in memory and, when a file is given, on disk (locked, written atomically). */
export class ToolPins {
  readonly policy: PinPolicy;
  readonly file: string | undefined;
  #pins: Record<string, ServerPins> = {};
  #loaded: Promise<void> | undefined;
  #writes: Promise<void> = Promise.resolve();

  constructor(policy: PinPolicy, file: string | undefined) {
    this.policy = policy;
    this.file = file;
  }

  /** Reads the file once; a missing or unreadable file holds no pins. */
  load(): Promise<void> {
    this.#loaded ??= (this.file === undefined ? Promise.resolve(undefined) : readJsonFile(this.file)).then(
      (value) => {
        const servers = (value as { version?: number; servers?: Record<string, ServerPins> } | undefined)
          ?.servers;
        if (typeof servers === 'object' && servers !== null) this.#pins = { ...servers, ...this.#pins };
      },
      () => {},
    );
    return this.#loaded;
  }

  /** Compares a server's new list with its pins, pins what is new, and says what differs (undefined: nothing). */
  async check(
    server: string,
    tools: readonly Tool[],
    poolName: (tool: string) => string,
  ): Promise<ToolsChangedEvent | undefined> {
    await this.load();
    this.#pins[server] ??= {};
    const pins = this.#pins[server];
    const event = {
      server,
      policy: this.policy,
      added: [] as string[],
      removed: [] as string[],
      changed: [] as Array<ToolsChangedEvent['changed'][number]>,
      hidden: [] as Array<ToolsChangedEvent['hidden'][number]>,
    };
    const holds = this.policy !== 'warn';
    for (const tool of tools) {
      const fingerprint = toolFingerprint(tool as Tool & Record<string, unknown>);
      const fields = fieldHashes(tool);
      const name = poolName(tool.name);
      const hidden = findHiddenInTool(tool).map((finding) => finding.field);
      const pin = pins[tool.name];
      if (pin === undefined) {
        event.added.push(name);
        if (hidden.length > 0) event.hidden.push({ name, fields: hidden });
        pins[tool.name] =
          holds && hidden.length > 0
            ? { fingerprint: '', fields: {}, held: { trust: this.#heldAs(), fingerprint, fields } }
            : { fingerprint, fields };
        continue;
      }
      pin.gone = undefined;
      const now = pin.held?.fingerprint ?? pin.fingerprint;
      if (now === fingerprint) continue;
      if (pin.fingerprint === fingerprint) {
        pin.held = undefined; // back to what was trusted
        continue;
      }
      const changed = FINGERPRINT_FIELDS.filter((field) => pin.fields[field] !== fields[field]);
      if (hidden.length > 0) event.hidden.push({ name, fields: hidden });
      if (holds)
        pin.held = { trust: pin.held?.trust === 'blocked' ? 'blocked' : this.#heldAs(), fingerprint, fields };
      else Object.assign(pin, { fingerprint, fields, held: undefined });
      event.changed.push({ name, fields: changed, trust: pin.held?.trust ?? 'trusted' });
    }
    const listed = new Set(tools.map((tool) => tool.name));
    for (const [original, pin] of Object.entries(pins)) {
      if (listed.has(original) || pin.gone) continue;
      pin.gone = true;
      event.removed.push(poolName(original));
    }
    this.#save(server);
    const empty = event.added.length + event.removed.length + event.changed.length === 0;
    return empty ? undefined : event;
  }

  #heldAs(): 'blocked' | 'awaiting_approval' {
    return this.policy === 'block' ? 'blocked' : 'awaiting_approval';
  }

  /** Where a server's tool stands; `trusted` for one never listed (it is checked when listed). */
  trust(server: string, originalName: string): ToolTrust {
    return this.#pins[server]?.[originalName]?.held?.trust ?? 'trusted';
  }

  /** Trusts a held tool as it is now. Returns false when the tool is blocked (only a reset frees it) or not held. */
  approve(server: string, originalName: string): boolean {
    const pin = this.#pins[server]?.[originalName];
    if (pin?.held?.trust !== 'awaiting_approval') return false;
    Object.assign(pin, { fingerprint: pin.held.fingerprint, fields: pin.held.fields, held: undefined });
    this.#save(server);
    return true;
  }

  /** Forgets the pins of `server` (or of every server): what is listed next is pinned anew. */
  async reset(server?: string): Promise<void> {
    await this.load();
    for (const name of server === undefined ? Object.keys(this.#pins) : [server]) {
      this.#pins[name] = {};
      this.#save(name);
    }
    await this.#writes;
  }

  #save(server: string): void {
    const file = this.file;
    if (file === undefined) return;
    const pins = structuredClone(this.#pins[server] ?? {});
    this.#writes = this.#writes.then(() =>
      updateJsonFile(file, (current) => {
        const servers = (current as { servers?: Record<string, ServerPins> } | undefined)?.servers ?? {};
        return { version: 1, servers: { ...servers, [server]: pins } };
      }).catch(() => {}),
    );
  }

  /** Resolves when every write so far is done. */
  flushed(): Promise<void> {
    return this.#writes;
  }
}
