import { afterEach, describe, expect, it } from "vitest";
import { KEYSPACE } from "../../../node/src/store/keyspaces.js";
import { PRUNING_NOTHING, type PruningOptions } from "../../../node/src/store/pruning.js";
import { StateRollbackError, stateRollbackOps } from "../../../node/src/store/state-rollback.js";
import type { StateStore } from "../../../node/src/store/state-store.js";
import {
  bytes,
  changeSetOf,
  collect,
  commitNext,
  countKeyspace,
  hex,
  openTempStateStore,
  type TempStateStore,
  text,
  type Write,
} from "./temp-state-store.js";

const KEEP_ALL_WITH_CHANGE_LOG: PruningOptions = { strategy: "custom", keepRecent: 1000, interval: 0 };

/** Every store's keys at the latest height, or at `height`. */
async function snapshot(store: StateStore, height?: number) {
  return {
    bank: await collect(store.iterate("bank", { height })),
    auth: await collect(store.iterate("auth", { height })),
  };
}

async function rollBack(t: TempStateStore, appHashBefore: Uint8Array): Promise<StateStore> {
  await t.store.db.batch(await stateRollbackOps(t.store, appHashBefore));
  return t.reopen();
}

describe("stateRollbackOps", () => {
  let t: TempStateStore | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  const lastBlock: Write[] = [
    ["bank", "a", "a3"], // changed
    ["bank", "new", "n3"], // created
    ["auth", "gone", null], // deleted
    ["auth", "zero\u0000key", "z3"], // a key holding the escape byte
  ];

  for (const [name, pruning] of [
    ["with the change log (pruning on)", KEEP_ALL_WITH_CHANGE_LOG],
    ["without a change log (pruning nothing: each key's versions are sought)", PRUNING_NOTHING],
  ] as const) {
    it(`takes the latest keyspace, versions and meta back to H-1, ${name}; committing H again gives the same app hash`, async () => {
      t = await openTempStateStore(pruning);
      await commitNext(t.store, [
        ["bank", "a", "a1"],
        ["auth", "gone", "g1"],
        ["auth", "kept", "k1"],
      ]);
      const hash2 = await commitNext(t.store, [
        ["bank", "a", "a2"],
        ["auth", "zero\u0000key", "z2"],
      ]);
      const before = await snapshot(t.store);
      const versionsAt2 = await countKeyspace(t.store, KEYSPACE.versions);
      const hash3 = await commitNext(t.store, lastBlock);

      const store = await rollBack(t, hash2);
      expect(store.latestHeight).toBe(2);
      expect(hex(store.latestAppHash)).toBe(hex(hash2));
      expect(await snapshot(store)).toEqual(before);
      expect(await snapshot(store, 2)).toEqual(before);
      expect(text(await store.get("auth", bytes("gone")))).toBe("g1");
      expect(await store.get("bank", bytes("new"))).toBeUndefined();
      expect(await countKeyspace(store, KEYSPACE.versions)).toBe(versionsAt2);
      expect(await countKeyspace(store, KEYSPACE.changes)).toBe(pruning.keepRecent > 0 ? 5 : 0);

      expect(hex(await store.commit(3, changeSetOf(lastBlock)))).toBe(hex(hash3));
    });
  }

  it("refuses with nothing committed, at height 1, and when H-1's state was pruned", async () => {
    // Keep one state, prune at every height: after height 3 only 3 is readable.
    t = await openTempStateStore({ strategy: "custom", keepRecent: 1, interval: 1 });
    await expect(stateRollbackOps(t.store, new Uint8Array())).rejects.toThrow(
      new StateRollbackError("nothing to roll back: no block has been committed"),
    );
    await commitNext(t.store, [["bank", "a", "1"]]);
    await expect(stateRollbackOps(t.store, new Uint8Array())).rejects.toThrow(
      "cannot roll back from height 1: there is no earlier committed state to return to",
    );
    await commitNext(t.store, [["bank", "a", "2"]]);
    await commitNext(t.store, [["bank", "a", "3"]]);
    await expect(stateRollbackOps(t.store, new Uint8Array())).rejects.toThrow(
      "cannot roll back to height 2: its state was pruned (earliest retained height 3)",
    );
  });
});
