import type { TokenStore } from './token-store.js';

/**
 * Mutual exclusion inside this process: `critical` runs after every earlier holder of `key`
 * has finished, whether it succeeded or failed.
 */
export class InProcessLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, critical: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const result = before.then(critical, critical);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}

/** Locks for stores without a `lock` of their own, one set per store object. */
const fallbackLocks = new WeakMap<object, InProcessLocks>();

/**
 * Runs `critical` holding the lock on one store entry: the store's own `lock` when it has one
 * (FileTokenStore's holds across processes), else a lock shared by everything in this process
 * that uses the same store object.
 */
export function withEntryLock<T>(store: TokenStore, key: string, critical: () => Promise<T>): Promise<T> {
  if (typeof store.lock === 'function') return store.lock(key, critical);
  let locks = fallbackLocks.get(store);
  if (!locks) {
    locks = new InProcessLocks();
    fallbackLocks.set(store, locks);
  }
  return locks.run(key, critical);
}
