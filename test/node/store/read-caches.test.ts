import { silentLogger } from "@chaind/core/logger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PRUNING_NOTHING } from "../../../node/src/store/pruning.js";
import { StateStore } from "../../../node/src/store/state-store.js";
import { StateStoreKeys } from "../../../node/src/store/state-store-keys.js";
import { StoreHeightError } from "../../../node/src/store/store-errors.js";
import {
  bytes,
  collect,
  commitNext,
  openTempStateStore,
  type TempStateStore,
  text,
} from "./temp-state-store.js";

// The state store's read caches: repeated reads must answer exactly what LevelDB holds, at every height.
describe("StateStore read caches", () => {
  let t: TempStateStore;
  beforeEach(async () => {
    t = await openTempStateStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("answers a repeated latest scan with the next commit's writes once it lands", async () => {
    await commitNext(t.store, [
      ["bank", "a1", "1"],
      ["bank", "a2", "2"],
    ]);
    const scan = () => collect(t.store.iterate("bank", { prefix: bytes("a") }));
    expect(await scan()).toEqual(await scan());
    await commitNext(t.store, [
      ["bank", "a2", null],
      ["bank", "a3", "3"],
    ]);
    expect((await scan()).map(([, v]) => v)).toEqual(["1", "3"]);
    expect(
      (await collect(t.store.iterate("bank", { prefix: bytes("a"), reverse: true }))).map(([, v]) => v),
    ).toEqual(["3", "1"]);
  });

  it("keeps what it hands out apart from what it remembers", async () => {
    await commitNext(t.store, [["bank", "a", "1"]]);
    await commitNext(t.store, [["bank", "b", "2"]]);
    for (const height of [undefined, 1]) {
      const first = (await t.store.get("bank", bytes("a"), height))!;
      first.fill(0);
      expect(text(await t.store.get("bank", bytes("a"), height))).toBe("1");
      for await (const [k, v] of t.store.iterate("bank", { height })) {
        k.fill(0);
        v.fill(0);
      }
      expect((await collect(t.store.iterate("bank", { height }))).map(([, v]) => v)).toEqual(
        height ? ["1"] : ["1", "2"],
      );
    }
  });

  it("answers past reads as LevelDB holds them, and refuses them once pruned, cached or not", async () => {
    await commitNext(t.store, [["bank", "a", "1"]]);
    await commitNext(t.store, [["bank", "a", "2"]]);
    await commitNext(t.store, [["bank", "a", null]]);
    for (let i = 0; i < 2; i++) {
      expect(text(await t.store.get("bank", bytes("a"), 1))).toBe("1");
      expect(text(await t.store.get("bank", bytes("a"), 2))).toBe("2");
      expect(await t.store.get("bank", bytes("a"), 3)).toBeUndefined();
      expect((await collect(t.store.iterate("bank", { height: 2 }))).map(([, v]) => v)).toEqual(["2"]);
    }
    // Keep the last 2 heights, pruning every block: height 1 goes with the next commit.
    await t.reopen({ ...PRUNING_NOTHING, keepRecent: 2, interval: 1 });
    await t.store.get("bank", bytes("a"), 2);
    await commitNext(t.store, [["bank", "b", "x"]]);
    await expect(t.store.get("bank", bytes("a"), 1)).rejects.toBeInstanceOf(StoreHeightError);
    expect(text(await t.store.get("bank", bytes("a"), 3))).toBeUndefined();
  });

  it("reads every time from LevelDB when turned off, and remembers a latest value when on", async () => {
    await commitNext(t.store, [["bank", "a", "1"]]);
    const rawLatest = StateStoreKeys.latest.encode(["bank", bytes("a")]);
    expect(text(await t.store.get("bank", bytes("a")))).toBe("1");
    await t.store.db.put(rawLatest, bytes("raw"));
    expect(text(await t.store.get("bank", bytes("a")))).toBe("1");
    await t.store.close();
    t.store = await StateStore.open(
      { dir: t.dir, pruning: PRUNING_NOTHING, readCacheEntries: 0 },
      { logger: silentLogger },
    );
    expect(text(await t.store.get("bank", bytes("a")))).toBe("raw");
    await t.store.db.put(rawLatest, bytes("raw2"));
    expect(text(await t.store.get("bank", bytes("a")))).toBe("raw2");
  });
});
