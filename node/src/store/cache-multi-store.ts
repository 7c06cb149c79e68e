import { BranchWrites } from "./branch-writes.js";
import { ChangeSet } from "./change-set.js";
import { mapKey } from "./map-key.js";
import type { IterateOptions, KVStore, MultiStore } from "./multi-store.js";

/** A store branch: writes stay in memory until `write()` hands them to the parent. */
export class CacheKVStore implements KVStore {
  readonly pending = new BranchWrites();

  constructor(private readonly parent: KVStore) {}

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const id = mapKey(key);
    // A tx's read passes its message, tx and block branches: walked in one step, with one map key.
    let s: KVStore = this;
    while (s instanceof CacheKVStore) {
      const p = s.pending.get(id);
      if (p) return Promise.resolve(p.value ?? undefined);
      s = s.parent;
    }
    return s.get(key);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.pending.set(mapKey(key), { key: new Uint8Array(key), value: new Uint8Array(value) });
  }

  delete(key: Uint8Array): void {
    this.pending.set(mapKey(key), { key: new Uint8Array(key), value: null });
  }

  /**
   * The parent's keys merged with pending writes. A branch with nothing pending when the iteration starts (every
   * query's) reads as its parent, without a merge step for each entry.
   */
  iterate(opts: IterateOptions = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    return {
      [Symbol.asyncIterator]: () =>
        (this.pending.size === 0 ? this.parent.iterate(opts) : this.merged(opts))[Symbol.asyncIterator](),
    };
  }

  /** Deletions hidden, new keys included, order kept; the branch's writes as they stood when it started. */
  private async *merged(opts: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const dir = opts.reverse ? -1 : 1;
    const mine = this.pending.range(opts);
    let next = mine.next();
    for await (const [k, v] of this.parent.iterate(opts)) {
      while (!next.done && dir * Buffer.compare(next.value.key, k) < 0) {
        const p = next.value;
        next = mine.next();
        if (p.value) yield [p.key, p.value];
      }
      if (!next.done && Buffer.compare(next.value.key, k) === 0) {
        const p = next.value;
        next = mine.next();
        if (p.value) yield [p.key, p.value];
        continue;
      }
      yield [k, v];
    }
    for (; !next.done; next = mine.next()) if (next.value.value) yield [next.value.key, next.value.value];
  }

  /** Hands the buffered writes to the parent and starts empty again. */
  write(): void {
    const parent = this.parent;
    if (parent instanceof CacheKVStore) {
      // Copied when they came in and never changed since: the parent branch takes the entries as they are.
      for (const [id, p] of this.pending.entries()) parent.pending.set(id, p);
    } else {
      for (const [, p] of this.pending.entries()) {
        if (p.value === null) parent.delete(p.key);
        else parent.set(p.key, p.value);
      }
    }
    this.pending.clear();
  }

  /** Drops the buffered writes; the parent never sees them. */
  discard(): void {
    this.pending.clear();
  }
}

/**
 * Branches every named store of a parent. Block execution runs on one, each tx on a branch of that, each
 * tx's messages on another; `write()` merges a branch into its parent, `discard()` (or dropping it) forgets it.
 * Any store name may be used: names are not declared up front, so a store loader can add and rename stores.
 */
export class CacheMultiStore implements MultiStore {
  private readonly stores = new Map<string, CacheKVStore>();

  constructor(private readonly parent: MultiStore) {}

  store(name: string): CacheKVStore {
    let s = this.stores.get(name);
    if (!s) {
      s = new CacheKVStore(this.parent.store(name));
      this.stores.set(name, s);
    }
    return s;
  }

  branch(): CacheMultiStore {
    return new CacheMultiStore(this);
  }

  /** Merges every buffered write into the parent branch; this branch is then empty and reusable. */
  write(): void {
    for (const s of this.stores.values()) s.write();
  }

  /** Drops every buffered write (dropping the object does the same; this makes it explicit and reusable). */
  discard(): void {
    for (const s of this.stores.values()) s.discard();
  }

  /** Everything this branch holds, for the commit of a block. */
  changeSet(): ChangeSet {
    const cs = new ChangeSet();
    for (const [name, s] of this.stores)
      for (const [id, p] of s.pending.entries()) cs.set(name, p.key, p.value, id);
    return cs;
  }
}
