import type { MultiStore } from "./multi-store.js";

/**
 * Store-level edits for the store loader, applied to a writable branch (a CacheMultiStore over the latest
 * state) whose change set is then committed at the upgrade height. Keys are collected before any write, so
 * iterating never sees its own edits.
 */

/** Moves every key of store `from` into store `to` (overwriting what `to` held under those keys). */
export async function renameStore(ms: MultiStore, from: string, to: string): Promise<number> {
  if (from === to) return 0;
  const source = ms.store(from);
  const target = ms.store(to);
  const entries: [Uint8Array, Uint8Array][] = [];
  for await (const entry of source.iterate({})) entries.push(entry);
  for (const [k, v] of entries) {
    target.set(k, v);
    source.delete(k);
  }
  return entries.length;
}

/** Deletes every key of store `name`. */
export async function deleteStore(ms: MultiStore, name: string): Promise<number> {
  const store = ms.store(name);
  const keys: Uint8Array[] = [];
  for await (const [k] of store.iterate({})) keys.push(k);
  for (const k of keys) store.delete(k);
  return keys.length;
}
