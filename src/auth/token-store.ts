import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { withFileLock, writePrivateFile } from '../private-file.js';
import type { StoredDPoPKey } from './dpop.js';
import { InProcessLocks } from './entry-lock.js';

/** Tokens for one resource from one authorization server (`key`: `tokens <issuer> <resource>`). */
export interface StoredTokens {
  /** Always `'tokens'`. */
  readonly kind: 'tokens';
  /** The authorization server that issued them. */
  readonly issuer: string;
  /** The access token, sent as `Authorization: <tokenType> <accessToken>`. */
  readonly accessToken: string;
  /** The token type, e.g. `Bearer` or `DPoP`. */
  readonly tokenType: string;
  /** The refresh token, if the server issued one. */
  readonly refreshToken?: string;
  /** Epoch ms after which the access token is refreshed before use. */
  readonly refreshAt?: number;
  /** The scopes asked for (space-separated), kept for step-up. */
  readonly scope?: string;
  /** The DPoP key pair the tokens are bound to (RFC 9449), when they were issued with a proof. */
  readonly dpopKey?: StoredDPoPKey;
}

/** A client registered with one authorization server (`key`: `client <issuer>`). */
export interface StoredClient {
  /** Always `'client'`. */
  readonly kind: 'client';
  /** The authorization server it is registered with. */
  readonly issuer: string;
  /** The client ID the server issued. */
  readonly clientId: string;
  /** The client secret, for a confidential client. */
  readonly clientSecret?: string;
  /** How the client authenticates at the token endpoint, e.g. `none` or `client_secret_basic`. */
  readonly tokenEndpointAuthMethod: string;
  /** The redirect URIs it registered. */
  readonly redirectUris: readonly string[];
  /** When the issued client secret expires, epoch seconds; absent or 0: never. Expired, the client registers again. */
  readonly clientSecretExpiresAt?: number;
}

/**
 * Which authorization server last issued tokens for one MCP endpoint (`key`: `resource <endpoint>`),
 * so that a new client finds them and sends them on its very first request.
 */
export interface StoredResource {
  /** Always `'resource'`. */
  readonly kind: 'resource';
  /** The authorization server that last issued tokens for the endpoint. */
  readonly issuer: string;
  /** The resource the tokens were issued for (RFC 8707), as the server's metadata names it. */
  readonly resource: string;
}

/** Any value a {@link TokenStore} keeps; tell them apart by `kind`. */
export type StoredAuth = StoredTokens | StoredClient | StoredResource;

/**
 * Where OAuth state is kept, keyed per authorization server (`issuer`) and resource, so that
 * nothing one server issued is ever offered to another. Values are plain JSON.
 *
 * Several clients (or processes) may share one store: a refresh re-reads the entry while holding
 * `lock`, so only one of them trades a refresh token (servers that rotate refresh tokens revoke
 * the whole grant when a used one comes back).
 */
export interface TokenStore {
  /** Resolves with the value stored under `key`, or undefined. */
  get(key: string): Promise<StoredAuth | undefined>;
  /** Stores `value` under `key`, replacing what was there. */
  set(key: string, value: StoredAuth): Promise<void>;
  /** Removes `key`; nothing happens if it is absent. */
  delete(key: string): Promise<void>;
  /**
   * Optional: runs `critical` while no other holder of `key` runs its own, and resolves with its
   * result. Without it, a lock shared by everything in this process using the same store object
   * is used; implement it when the store is shared across processes.
   */
  lock?<T>(key: string, critical: () => Promise<T>): Promise<T>;
}

export function resourceKey(endpoint: string): string {
  return `resource ${endpoint}`;
}

export function tokensKey(issuer: string, resource: string): string {
  return `tokens ${issuer} ${resource}`;
}

export function clientKey(issuer: string): string {
  return `client ${issuer}`;
}

/** The default store: this process's memory, gone when it exits. */
export class MemoryTokenStore implements TokenStore {
  readonly #entries = new Map<string, StoredAuth>();
  readonly #locks = new InProcessLocks();

  /** Holds `key` within this process (a memory store is never shared with another). */
  lock<T>(key: string, critical: () => Promise<T>): Promise<T> {
    return this.#locks.run(key, critical);
  }

  async get(key: string): Promise<StoredAuth | undefined> {
    return this.#entries.get(key);
  }

  async set(key: string, value: StoredAuth): Promise<void> {
    this.#entries.set(key, value);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  /** `[MemoryTokenStore: <n> entries]`: JSON.stringify and loggers never show the tokens. */
  toJSON(): string {
    return `[MemoryTokenStore: ${this.#entries.size} entries]`;
  }
}

interface FileContents {
  readonly version: 1;
  readonly entries: Record<string, StoredAuth>;
}

/** Longest wait for another process's lock on a token file, ms. */
export const FILE_LOCK_WAIT_MS = 60_000;

/**
 * Keeps OAuth state in one JSON file readable and writable by its owner only (mode 0600, in a
 * directory created 0700). Every write replaces the file atomically (a temporary file in the same
 * directory, flushed, then renamed), so a crash never leaves half a file, and every read goes to
 * the file, so several clients or processes sharing it see each other's tokens.
 *
 * `lock` holds the file across processes (a `<file>.lock` directory through `proper-lockfile`,
 * a maintained library that keeps the lock fresh while held and takes over one a dead process
 * left for 10 s), waiting at most FILE_LOCK_WAIT_MS for a live holder, then throwing an Error
 * naming the file.
 */
export class FileTokenStore implements TokenStore {
  /** The file's absolute path. */
  readonly path: string;
  #writes: Promise<unknown> = Promise.resolve();
  readonly #locks = new InProcessLocks();

  /**
   * Nothing is read or created until first use; the file and its directory are created on the
   * first write.
   *
   * @param file An absolute path.
   * @throws `TypeError` when `file` is not an absolute path.
   */
  constructor(file: string) {
    if (typeof file !== 'string' || !path.isAbsolute(file)) {
      throw new TypeError(`FileTokenStore needs an absolute file path, got ${JSON.stringify(file)}`);
    }
    this.path = file;
  }

  lock<T>(_key: string, critical: () => Promise<T>): Promise<T> {
    // One holder per file, whatever the key: the file is the unit other processes lock.
    return this.#locks.run('file', () => withFileLock(this.path, FILE_LOCK_WAIT_MS, critical));
  }

  /**
   * Reads the file (after this object's pending writes) and resolves with the value under `key`,
   * or undefined; a missing file holds nothing.
   *
   * @throws `Error` (rejects) when the file is not a conduit-mcp token file, or cannot be read.
   */
  async get(key: string): Promise<StoredAuth | undefined> {
    await this.#writes;
    return (await this.#read()).entries[key];
  }

  /**
   * Stores `value` under `key`: writes are queued, and each replaces the file atomically.
   *
   * @throws `Error` (rejects) when the file is not a conduit-mcp token file, or cannot be written.
   */
  set(key: string, value: StoredAuth): Promise<void> {
    return this.#update((entries) => {
      entries[key] = value;
    });
  }

  /** Removes `key` from the file (a queued, atomic write like {@link FileTokenStore.set}). */
  delete(key: string): Promise<void> {
    return this.#update((entries) => {
      delete entries[key];
    });
  }

  #update(change: (entries: Record<string, StoredAuth>) => void): Promise<void> {
    const next = this.#writes.then(async () => {
      const entries = { ...(await this.#read()).entries };
      change(entries);
      await this.#write({ version: 1, entries });
    });
    this.#writes = next.catch(() => {});
    return next;
  }

  async #read(): Promise<FileContents> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, entries: {} };
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<FileContents>;
    if (parsed?.version !== 1 || typeof parsed.entries !== 'object' || parsed.entries === null) {
      throw new Error(`${this.path} is not a conduit-mcp token file (version 1); move it away or delete it`);
    }
    return { version: 1, entries: parsed.entries };
  }

  #write(contents: FileContents): Promise<void> {
    return writePrivateFile(this.path, `${JSON.stringify(contents, null, 2)}\n`);
  }

  /** `[FileTokenStore: <path>]`: JSON.stringify and loggers never show the tokens. */
  toJSON(): string {
    return `[FileTokenStore: ${this.path}]`;
  }
}
