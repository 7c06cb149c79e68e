import { mapKey } from "./map-key.js";
/** One write of a block: a new value, or null for a deletion. */
export interface Change {
  store: string;
  key: Uint8Array;
  value: Uint8Array | null;
}

/**
 * Every write a block makes, at most one per (store, key) (a later write replaces an earlier one), listed in a
 * deterministic order. Keys are held as map keys (map-key.ts) inside each store; bytes are kept, not copied.
 */
export class ChangeSet {
  private readonly byStore = new Map<string, Map<string, Change>>();

  /** `id`: the key's map key, when the caller has it already. */
  set(store: string, key: Uint8Array, value: Uint8Array | null, id = mapKey(key)): void {
    let m = this.byStore.get(store);
    if (!m) {
      m = new Map();
      this.byStore.set(store, m);
    }
    m.set(id, { store, key, value });
  }

  delete(store: string, key: Uint8Array): void {
    this.set(store, key, null);
  }

  get size(): number {
    let n = 0;
    for (const m of this.byStore.values()) n += m.size;
    return n;
  }

  /** Sorted by store name, then key bytes: the order the app hash is computed in. */
  entries(): Change[] {
    const out: Change[] = [];
    for (const store of [...this.byStore.keys()].sort()) {
      const m = this.byStore.get(store)!;
      for (const k of [...m.keys()].sort()) out.push(m.get(k)!);
    }
    return out;
  }
}
