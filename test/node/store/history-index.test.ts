import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { afterEach, describe, expect, it } from "vitest";
import { escapedBytesKey } from "../../../node/src/store/escaped-bytes-key.js";
import { rangeOf } from "../../../node/src/store/history-nodes.js";
import { KEYSPACE } from "../../../node/src/store/keyspaces.js";
import { PRUNING_NOTHING, type PruningOptions } from "../../../node/src/store/pruning.js";
import { stateRollbackOps } from "../../../node/src/store/state-rollback.js";
import {
  type CommitMeta,
  commitMetaOp,
  parseCommitMeta,
  StateStore,
} from "../../../node/src/store/state-store.js";
import { META_KEY, StateStoreKeys } from "../../../node/src/store/state-store-keys.js";
import { StoreHeightError } from "../../../node/src/store/store-errors.js";
import { bytes, changeSetOf, text, type Write } from "./temp-state-store.js";

/** A deterministic PRNG, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STORES = ["bank", "auth"];
/** hot: every block; once: only at the first block; flip: deleted and written again; sparse: now and then. */
const KEYS = ["hot", "once", "flip", "sparse0", "sparse1", "sparse2", "never", "k\u0000zero"];

/** What every key held at every height: [height, value or null] ascending, per "store/key". */
class Model {
  history = new Map<string, [number, string | null][]>();

  write(height: number, writes: Write[]): void {
    for (const [store, key, value] of writes) {
      const id = `${store}/${key as string}`;
      const h = this.history.get(id) ?? [];
      h.push([height, value]);
      this.history.set(id, h);
    }
  }

  /** Forgets the latest height's writes (a rollback). */
  dropAbove(height: number): void {
    for (const [id, h] of this.history) {
      const kept = h.filter(([at]) => at <= height);
      if (kept.length > 0) this.history.set(id, kept);
      else this.history.delete(id);
    }
  }

  at(store: string, key: string, height: number): string | undefined {
    let v: string | null = null;
    for (const [at, value] of this.history.get(`${store}/${key}`) ?? []) if (at <= height) v = value;
    return v ?? undefined;
  }
}

/** The writes of one block: the hot key always, the others at random. */
function blockWrites(next: () => number, first: boolean): Write[] {
  const out: Write[] = [];
  for (const store of STORES) {
    out.push([store, "hot", String(next())]);
    if (first) out.push([store, "once", "only"]);
    if (next() < 0.02) out.push([store, "flip", next() < 0.5 ? null : String(next())]);
    for (const key of ["sparse0", "sparse1", "sparse2"])
      if (next() < 0.004) out.push([store, key, next() < 0.3 ? null : String(next())]);
    if (next() < 0.01) out.push([store, "k\u0000zero", String(next())]);
  }
  return out;
}

/** The old way of reading a past height: one reverse seek within the key's versions. */
async function bySeek(store: StateStore, name: string, key: string, height: number) {
  const group = StateStoreKeys.versions.prefixOf(name, bytes(key));
  for await (const v of store.db.values({
    gte: group,
    lte: StateStoreKeys.versions.encode([name, bytes(key), height]),
    reverse: true,
    limit: 1,
  }))
    return v[0] === 0x01 ? new TextDecoder().decode(v.subarray(1)) : undefined;
  return undefined;
}

/** Every raw record of one keyspace, hex, for comparing two indexes. */
async function keyspace(store: StateStore, prefix: number): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of store.db.iterator({ gte: Uint8Array.of(prefix), lt: Uint8Array.of(prefix + 1) }))
    out.push(`${Buffer.from(k).toString("hex")}=${Buffer.from(v).toString("hex")}`);
  return out;
}

interface Chain {
  dir: string;
  store: StateStore;
  model: Model;
  next: () => number;
}

async function open(dir: string, pruning: PruningOptions = PRUNING_NOTHING): Promise<StateStore> {
  // Read caches off: every read goes to LevelDB.
  return StateStore.open({ dir, pruning, readCacheEntries: 0 }, { logger: silentLogger });
}

async function commitBlocks(c: Chain, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const height = c.store.nextHeight;
    const writes = blockWrites(c.next, c.store.latestHeight === 0);
    await c.store.commit(height, changeSetOf(writes));
    c.model.write(height, writes);
  }
}

/**
 * Reads every key at every retained height through the store (the index) and checks it against the model and
 * the old seek; and that the index itself answered, without falling back to the seek.
 */
async function expectEveryReadRight(c: Chain, from = c.store.earliestHeight): Promise<number> {
  let reads = 0;
  for (let h = from; h <= c.store.latestHeight; h++)
    for (const name of STORES)
      for (const key of KEYS) {
        const want = c.model.at(name, key, h);
        const got = text(await c.store.get(name, bytes(key), h));
        if (got !== want || (h % 7 === 0 && (await bySeek(c.store, name, key, h)) !== want))
          expect({ name, key, h, got, seek: await bySeek(c.store, name, key, h) }).toEqual({
            name,
            key,
            h,
            got: want,
            seek: want,
          });
        if (h < 2 ** 30)
          expect(
            c.store.history.changeAtOrBefore(name, escapedBytesKey.encode(bytes(key)), h),
          ).not.toBeNull();
        reads++;
      }
  return reads;
}

async function setMeta(store: StateStore, edit: (m: CommitMeta) => CommitMeta): Promise<void> {
  const op = commitMetaOp(edit(parseCommitMeta((await store.db.get(META_KEY))!)));
  await store.db.put(op.key, op.value);
}

describe("history index", () => {
  const dirs: string[] = [];
  const stores: StateStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function chain(seed: number, startHeight = 1, pruning = PRUNING_NOTHING): Promise<Chain> {
    const dir = await mkdtemp(join(tmpdir(), "chaind-history-"));
    dirs.push(dir);
    const store = await open(dir, pruning);
    stores.push(store);
    if (startHeight > 1) store.setGenesisStart(startHeight, new Uint8Array());
    return { dir, store, model: new Model(), next: rng(seed) };
  }

  async function reopen(c: Chain, pruning?: PruningOptions): Promise<void> {
    await c.store.close();
    c.store = await open(c.dir, pruning);
    stores.push(c.store);
  }

  it("reads every key at every height as the versions hold it, across 1024-block and 1024^2-block ranges", async () => {
    // Starting just below 2^20, the chain crosses level-1 ranges and a level-2 one.
    const c = await chain(1, 2 ** 20 - 1100);
    await commitBlocks(c, 2200);
    expect(await expectEveryReadRight(c)).toBe(2200 * STORES.length * KEYS.length);
    // A key written every block: a head and closed level-1 nodes; one never written: nothing.
    expect(await keyspace(c.store, KEYSPACE.historyNodes)).not.toEqual([]);
    expect(
      await c.store.db.get(StateStoreKeys.historyHeads.encode(["bank", bytes("never")])),
    ).toBeUndefined();
  });

  it("past level 3's first range: right answers, through the versions where the index cannot tell", async () => {
    const c = await chain(2, 2 ** 30 - 600);
    await commitBlocks(c, 1200);
    await expectEveryReadRight(c);
  });

  it("keeps the index right through rollbacks, and a rollback and recommit leaves what a rebuild makes", async () => {
    const c = await chain(3, 1);
    await commitBlocks(c, 1100);
    for (let i = 0; i < 30; i++) {
      const height = c.store.latestHeight;
      await c.store.db.batch(await stateRollbackOps(c.store, new Uint8Array(32)));
      c.model.dropAbove(height - 1);
      await reopen(c);
      expect(c.store.latestHeight).toBe(height - 1);
      expect(c.store.historyIndexed).toBe(true);
    }
    await expectEveryReadRight(c);
    await commitBlocks(c, 100);
    await expectEveryReadRight(c, c.store.latestHeight - 200);
    const heads = await keyspace(c.store, KEYSPACE.historyHeads);
    const nodes = await keyspace(c.store, KEYSPACE.historyNodes);
    await setMeta(c.store, ({ historyIndex: _, ...m }) => m);
    await reopen(c);
    expect(await keyspace(c.store, KEYSPACE.historyHeads)).toEqual(heads);
    expect(await keyspace(c.store, KEYSPACE.historyNodes)).toEqual(nodes);
  });

  it("builds the index on open for a home written without one, and after commits by a binary that kept none", async () => {
    const c = await chain(4, 1);
    await commitBlocks(c, 1100);
    const heads = await keyspace(c.store, KEYSPACE.historyHeads);
    // A home from before the index: no index records, and a meta record that names no index.
    await c.store.db.clear({
      gte: Uint8Array.of(KEYSPACE.historyHeads),
      lt: Uint8Array.of(KEYSPACE.historyNodes + 1),
    });
    await setMeta(c.store, ({ historyIndex: _, ...m }) => m);
    await reopen(c);
    expect(c.store.historyIndexed).toBe(true);
    expect(await keyspace(c.store, KEYSPACE.historyHeads)).toEqual(heads);
    await expectEveryReadRight(c);

    // An older binary commits two blocks: versions and latest values, a meta record without the index.
    for (const height of [1101, 1102]) {
      const writes: Write[] = [
        ["bank", "hot", `old binary ${height}`],
        ["bank", "once", null],
      ];
      const batch = c.store.db.batch();
      for (const [name, key, value] of writes) {
        batch.put(
          StateStoreKeys.versions.encode([name, bytes(key as string), height]),
          value === null ? Uint8Array.of(0) : Uint8Array.of(1, ...bytes(value)),
        );
        if (value === null) batch.del(StateStoreKeys.latest.encode([name, bytes(key as string)]));
        else batch.put(StateStoreKeys.latest.encode([name, bytes(key as string)]), bytes(value));
      }
      await batch.write();
      c.model.write(height, writes);
      await setMeta(c.store, (m) => ({ height, appHash: m.appHash, earliest: m.earliest }));
    }
    await reopen(c);
    expect(c.store.latestHeight).toBe(1102);
    expect(text(await c.store.get("bank", bytes("hot"), 1101))).toBe("old binary 1101");
    expect(await c.store.get("bank", bytes("once"), 1101)).toBeUndefined();
    await commitBlocks(c, 50);
    await expectEveryReadRight(c, 900);
  });

  it("keeps every retained height right while pruning, and still refuses the pruned ones", async () => {
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 300, interval: 10 };
    const c = await chain(5, 2 ** 20 - 1000, pruning);
    await commitBlocks(c, 1600);
    const earliest = c.store.earliestHeight;
    expect(earliest).toBeGreaterThan(c.store.latestHeight - 300 - pruning.interval);
    await expectEveryReadRight(c);
    await expect(c.store.get("bank", bytes("hot"), earliest - 1)).rejects.toBeInstanceOf(StoreHeightError);
    expect(() => c.store.checkHeight(earliest - 1)).toThrow(/version does not exist/);
    // The nodes of the key written every block that lie wholly below the retained heights went with its versions.
    for (const name of STORES) {
      const ranges: number[] = [];
      for await (const k of c.store.db.keys({
        gte: StateStoreKeys.historyNodes.prefixOf(name, bytes("hot"), 1),
        lt: StateStoreKeys.historyNodes.prefixOf(name, bytes("hot"), 2),
      }))
        ranges.push(StateStoreKeys.historyNodes.decode(k)[3]);
      expect(ranges.every((r) => r >= rangeOf(1, earliest))).toBe(true);
    }
    // A rollback to a retained height, and a rebuild over pruned versions, still read right.
    await c.store.db.batch(await stateRollbackOps(c.store, new Uint8Array(32)));
    c.model.dropAbove(c.store.latestHeight - 1);
    await reopen(c, pruning);
    expect(c.store.historyIndexed).toBe(true);
    await expectEveryReadRight(c);
    await setMeta(c.store, ({ historyIndex: _, ...m }) => m);
    await reopen(c, pruning);
    await expectEveryReadRight(c);
    await commitBlocks(c, 100);
    await expectEveryReadRight(c);
  });

  it("drops the records of a key deleted for good once pruning removes its last version", async () => {
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 5, interval: 5 };
    const c = await chain(7, 1, pruning);
    const head = (key: string) => c.store.db.get(StateStoreKeys.historyHeads.encode(["bank", bytes(key)]));
    await c.store.commit(
      1,
      changeSetOf([
        ["bank", "gone", "1"],
        ["bank", "back", "1"],
        ["bank", "kept", "1"],
      ]),
    );
    await c.store.commit(
      2,
      changeSetOf([
        ["bank", "gone", null],
        ["bank", "back", null],
      ]),
    );
    for (let h = 3; h <= 20; h++) {
      // "back" is written again after its deletion: its records stay.
      const writes: Write[] = [["bank", "tick", String(h)]];
      if (h === 12) writes.push(["bank", "back", "12"]);
      await c.store.commit(h, changeSetOf(writes));
    }
    expect(c.store.earliestHeight).toBeGreaterThan(2);
    expect(await head("gone")).toBeUndefined();
    expect(await head("back")).toBeDefined();
    expect(await head("kept")).toBeDefined();
    for (let h = c.store.earliestHeight; h <= c.store.latestHeight; h++) {
      expect(await c.store.get("bank", bytes("gone"), h)).toBeUndefined();
      expect(text(await c.store.get("bank", bytes("back"), h))).toBe(h >= 12 ? "12" : undefined);
      expect(text(await c.store.get("bank", bytes("kept"), h))).toBe("1");
    }
    // Written again later, the key starts a history of its own.
    await c.store.commit(21, changeSetOf([["bank", "gone", "21"]]));
    await c.store.commit(22, changeSetOf([["bank", "gone", "22"]]));
    expect(text(await c.store.get("bank", bytes("gone"), 21))).toBe("21");
    expect(text(await c.store.get("bank", bytes("gone"), 22))).toBe("22");
    expect(await c.store.get("bank", bytes("gone"), 20)).toBeUndefined();
  });

  it("indexes a snapshot's state on import, then every commit after it", async () => {
    const source = await chain(6, 1);
    await commitBlocks(source, 600);
    const target = await chain(6, 1);
    const height = source.store.latestHeight;
    async function* items() {
      for (const store of STORES)
        for await (const [key, value] of source.store.iterate(store)) yield { store, key, value };
    }
    await target.store.importState(height, source.store.latestAppHash, items(), []);
    expect(target.store.historyIndexed).toBe(true);
    for (const name of STORES)
      for (const key of KEYS) {
        const v = source.model.at(name, key, height);
        if (v !== undefined) target.model.write(height, [[name, key, v]]);
      }
    target.next = rng(66);
    await commitBlocks(target, 700);
    await expectEveryReadRight(target);
    await reopen(target);
    await expectEveryReadRight(target, target.store.latestHeight - 200);
  });
});
