import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { ChangeSet } from "../../../node/src/store/change-set.js";
import { PRUNING_NOTHING, type PruningOptions } from "../../../node/src/store/pruning.js";
import { StateStore } from "../../../node/src/store/state-store.js";

export const bytes = (s: string) => new TextEncoder().encode(s);
export const text = (u: Uint8Array | undefined) => (u ? new TextDecoder().decode(u) : undefined);
export const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");

/** A StateStore in its own temporary folder; `cleanup` closes it and removes the folder. */
export interface TempStateStore {
  dir: string;
  store: StateStore;
  reopen(pruning?: PruningOptions): Promise<StateStore>;
  cleanup(): Promise<void>;
}

export async function openTempStateStore(pruning: PruningOptions = PRUNING_NOTHING): Promise<TempStateStore> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-store-"));
  const t: TempStateStore = {
    dir,
    store: await StateStore.open({ dir, pruning }, { logger: silentLogger }),
    async reopen(p = pruning) {
      await t.store.close();
      t.store = await StateStore.open({ dir, pruning: p }, { logger: silentLogger });
      return t.store;
    },
    async cleanup() {
      await t.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/** One write of a test block: [store, key, value or null to delete]. */
export type Write = [string, string | Uint8Array, string | null];

export function changeSetOf(writes: Write[]): ChangeSet {
  const cs = new ChangeSet();
  for (const [st, k, v] of writes)
    cs.set(st, typeof k === "string" ? bytes(k) : k, v === null ? null : bytes(v));
  return cs;
}

/** Commits the next height with the given writes. */
export function commitNext(store: StateStore, writes: Write[]): Promise<Uint8Array> {
  return store.commit(store.latestHeight + 1, changeSetOf(writes));
}

/** [hex key, text value] pairs, for readable expectations. */
export async function collect(it: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of it) out.push([hex(k), text(v)!]);
  return out;
}

/** How many raw entries one keyspace of the LevelDB holds. */
export async function countKeyspace(store: StateStore, prefix: number): Promise<number> {
  let n = 0;
  for await (const _ of store.db.keys({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1) })) n++;
  return n;
}
