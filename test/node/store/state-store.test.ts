import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KEYSPACE } from "../../../node/src/store/keyspaces.js";
import { StoreHeightError } from "../../../node/src/store/store-errors.js";
import {
  bytes,
  changeSetOf,
  collect,
  commitNext,
  hex,
  openTempStateStore,
  type TempStateStore,
  text,
  type Write,
} from "./temp-state-store.js";

const k = (...b: number[]) => Uint8Array.from(b);

describe("StateStore", () => {
  let t: TempStateStore;
  beforeEach(async () => {
    t = await openTempStateStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("starts empty at height 0", async () => {
    expect(t.store.latestHeight).toBe(0);
    expect(t.store.latestAppHash).toEqual(new Uint8Array());
    expect(await t.store.get("bank", bytes("a"))).toBeUndefined();
    expect(await collect(t.store.iterate("bank"))).toEqual([]);
  });

  it("answers a read at the latest height with that height's value, even while the next commit lands", async () => {
    await commitNext(t.store, [["bank", "a", "1"]]);
    // Remembered by the latest-value cache...
    expect(text(await t.store.get("bank", bytes("a"), 1))).toBe("1");
    // ...and started right before a commit that changes the key: still height 1's value.
    const during = t.store.get("bank", bytes("a"), 1);
    const latestDuring = t.store.get("bank", bytes("a"));
    await commitNext(t.store, [["bank", "a", "2"]]);
    expect(text(await during)).toBe("1");
    expect(["1", "2"]).toContain(text(await latestDuring));
    // The commit emptied the cache: the new latest value, and the old one at its height.
    const got = (await t.store.get("bank", bytes("a")))!;
    expect(text(got)).toBe("2");
    got.fill(0); // a caller's copy: the cached value is not touched
    expect(text(await t.store.get("bank", bytes("a"), 2))).toBe("2");
    expect(text(await t.store.get("bank", bytes("a"), 1))).toBe("1");
    await commitNext(t.store, [["bank", "a", null]]);
    expect(await t.store.get("bank", bytes("a"), 3)).toBeUndefined();
    expect(await t.store.get("bank", bytes("a"))).toBeUndefined();
  });

  it("reads latest values, and old values at their heights after overwrites and deletes", async () => {
    await commitNext(t.store, [
      ["bank", "a", "1"],
      ["auth", "a", "other store"],
    ]);
    await commitNext(t.store, [["bank", "a", "2"]]);
    await commitNext(t.store, [["bank", "a", null]]);
    await commitNext(t.store, [["bank", "b", "x"]]);
    const get = async (store: string, key: string, h?: number) =>
      text(await t.store.get(store, bytes(key), h));
    expect(await get("bank", "a")).toBeUndefined();
    expect(await get("bank", "a", 1)).toBe("1");
    expect(await get("bank", "a", 2)).toBe("2");
    expect(await get("bank", "a", 3)).toBeUndefined();
    expect(await get("bank", "a", 4)).toBeUndefined();
    expect(await get("bank", "b", 3)).toBeUndefined();
    expect(await get("bank", "b")).toBe("x");
    expect(await get("auth", "a")).toBe("other store");
    expect(await get("auth", "a", 4)).toBe("other store");
    // Deletion removes the latest entry; the versions keep the history.
    expect(await t.store.db.get(Uint8Array.of(KEYSPACE.latest))).toBeUndefined();
  });

  it("keeps stores whose names prefix each other apart, and returns plain Uint8Arrays", async () => {
    await commitNext(t.store, [
      ["a", "bx", "in a"],
      ["ab", "x", "in ab"],
    ]);
    expect(await collect(t.store.iterate("a"))).toEqual([[hex(bytes("bx")), "in a"]]);
    expect(await collect(t.store.iterate("ab", { height: 1 }))).toEqual([[hex(bytes("x")), "in ab"]]);
    expect(await t.store.get("a", bytes("b"))).toBeUndefined();
    const v = await t.store.get("a", bytes("bx"));
    expect(Object.getPrototypeOf(v)).toBe(Uint8Array.prototype);
  });

  it("iterates prefixes and ranges at a height, with 0x00 bytes and keys that prefix each other", async () => {
    const cs = changeSetOf([]);
    for (const key of [k(1), k(1, 0), k(1, 0, 0), k(1, 0xff), k(1, 0, 5), k(2), k(0), k(0, 0)])
      cs.set("s", key, bytes(hex(key)));
    await t.store.commit(1, cs);
    const later = changeSetOf([]);
    later.delete("s", k(1, 0));
    later.set("s", k(1, 0x7f), bytes("new"));
    await t.store.commit(2, later);
    const keys = async (it: AsyncIterable<[Uint8Array, Uint8Array]>) =>
      (await collect(it)).map(([key]) => key);

    expect(await keys(t.store.iterate("s", { prefix: k(1), height: 1 }))).toEqual([
      "01",
      "0100",
      "010000",
      "010005",
      "01ff",
    ]);
    const at2 = await collect(t.store.iterate("s", { prefix: k(1), height: 2 }));
    expect(at2.map(([key]) => key)).toEqual(["01", "010000", "010005", "017f", "01ff"]);
    expect(await collect(t.store.iterate("s", { prefix: k(1) }))).toEqual(at2);
    const rev = await collect(t.store.iterate("s", { prefix: k(1), height: 2, reverse: true }));
    expect(rev).toEqual([...at2].reverse());
    expect(await collect(t.store.iterate("s", { prefix: k(1), reverse: true }))).toEqual(rev);
    expect(await keys(t.store.iterate("s", { prefix: k(1, 0), height: 1 }))).toEqual([
      "0100",
      "010000",
      "010005",
    ]);
    expect(await keys(t.store.iterate("s", { prefix: k(0), height: 2 }))).toEqual(["00", "0000"]);
    expect(await keys(t.store.iterate("s", { start: k(1, 0), end: k(1, 0x7f), height: 1 }))).toEqual([
      "0100",
      "010000",
      "010005",
    ]);
    expect(await keys(t.store.iterate("s", { start: k(1, 0), end: k(1, 0x7f), reverse: true }))).toEqual([
      "010005",
      "010000",
    ]);
    expect(await keys(t.store.iterate("s", { height: 1 }))).toEqual([
      "00",
      "0000",
      "01",
      "0100",
      "010000",
      "010005",
      "01ff",
      "02",
    ]);
  });

  it("answers iteration far behind hot keys, forward and reverse", async () => {
    for (let h = 1; h <= 30; h++)
      await commitNext(t.store, [
        ["s", "hot-a", `a${h}`],
        ["s", "hot-b", h < 20 ? `b${h}` : null],
        ...(h === 3 ? [["s", "mid", "m3"] as Write] : []),
      ]);
    const at = (h: number, reverse = false) =>
      collect(t.store.iterate("s", { height: h, reverse })).then((r) => r.map(([, v]) => v));
    expect(await at(2)).toEqual(["a2", "b2"]);
    expect(await at(2, true)).toEqual(["b2", "a2"]);
    expect(await at(5)).toEqual(["a5", "b5", "m3"]);
    expect(await at(5, true)).toEqual(["m3", "b5", "a5"]);
    expect(await at(25)).toEqual(["a25", "m3"]);
    expect(await at(25, true)).toEqual(["m3", "a25"]);
  });

  it("matches a model of every height under random writes, at every retained height", async () => {
    await t.reopen({ strategy: "custom", keepRecent: 4, interval: 5 });
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const keyPool = [
      k(0),
      k(0, 0),
      k(1),
      k(1, 0),
      k(1, 0, 0),
      k(1, 0, 1),
      k(1, 1),
      k(1, 0xff),
      k(2),
      k(0xff),
    ];
    const stores = ["a", "ab"];
    const snapshots: Map<string, Map<string, string>>[] = [new Map(stores.map((s) => [s, new Map()]))];
    const expectedAt = (h: number, store: string, filter: (key: string) => boolean, reverse: boolean) => {
      const rows = [...snapshots[h].get(store)!].filter(([key]) => filter(key));
      rows.sort(([x], [y]) => Buffer.compare(Buffer.from(x, "hex"), Buffer.from(y, "hex")));
      return reverse ? rows.reverse() : rows;
    };
    for (let h = 1; h <= 32; h++) {
      const next = new Map([...snapshots[h - 1]].map(([s, m]) => [s, new Map(m)]));
      const cs = changeSetOf([]);
      for (let i = rand(5); i >= 0; i--) {
        const store = stores[rand(stores.length)];
        const key = keyPool[rand(keyPool.length)];
        if (rand(3) === 0) {
          cs.delete(store, key);
          next.get(store)!.delete(hex(key));
        } else {
          cs.set(store, key, bytes(`v${h}.${i}`));
          next.get(store)!.set(hex(key), `v${h}.${i}`);
        }
      }
      await t.store.commit(h, cs);
      snapshots.push(next);
      for (let r = t.store.earliestHeight; r <= h; r++) {
        for (const store of stores) {
          for (const reverse of [false, true]) {
            expect(await collect(t.store.iterate(store, { height: r, reverse }))).toEqual(
              expectedAt(r, store, () => true, reverse),
            );
            expect(await collect(t.store.iterate(store, { height: r, reverse, prefix: k(1, 0) }))).toEqual(
              expectedAt(r, store, (key) => key.startsWith("0100"), reverse),
            );
            expect(
              await collect(t.store.iterate(store, { height: r, reverse, start: k(0, 0), end: k(1, 0, 1) })),
            ).toEqual(
              expectedAt(
                r,
                store,
                (key) =>
                  Buffer.compare(Buffer.from(key, "hex"), k(0, 0)) >= 0 &&
                  Buffer.compare(Buffer.from(key, "hex"), k(1, 0, 1)) < 0,
                reverse,
              ),
            );
          }
          for (const key of keyPool)
            expect(text(await t.store.get(store, key, r))).toBe(snapshots[r].get(store)!.get(hex(key)));
        }
      }
      for (const store of stores)
        expect(await collect(t.store.iterate(store))).toEqual(expectedAt(h, store, () => true, false));
    }
    expect(t.store.earliestHeight).toBe(27);
  });

  it("refuses future, zero, negative and pruned heights with typed errors naming the heights", async () => {
    await commitNext(t.store, [["s", "a", "1"]]);
    for (const [h, code, msg] of [
      [5, "FUTURE_HEIGHT", /height 5.*latest height: 1/],
      [0, "INVALID_HEIGHT", /height 0/],
      [-1, "INVALID_HEIGHT", /height -1/],
      [1.5, "INVALID_HEIGHT", /height 1.5/],
    ] as const) {
      const e = await t.store.get("s", bytes("a"), h).catch((x) => x);
      expect(e).toBeInstanceOf(StoreHeightError);
      expect(e.code).toBe(code);
      expect(e.message).toMatch(msg);
      await expect(collect(t.store.iterate("s", { height: h }))).rejects.toBeInstanceOf(StoreHeightError);
      expect(() => t.store.view(h)).toThrow(StoreHeightError);
    }
  });

  it("writes the caller's extra ops in the commit batch and rejects a wrong height", async () => {
    const extra = Uint8Array.of(0x10, 1);
    await t.store.commit(1, changeSetOf([["s", "a", "1"]]), [
      { type: "put", key: extra, value: bytes("block") },
    ]);
    expect(text(await t.store.db.get(extra))).toBe("block");
    await expect(t.store.commit(3, changeSetOf([]))).rejects.toThrow(
      /cannot commit height 3.*last committed height is 1/,
    );
    await expect(t.store.commit(1, changeSetOf([]))).rejects.toThrow(/cannot commit height 1/);
    await t.store.commit(2, changeSetOf([]), [{ type: "del", key: extra }]);
    expect(await t.store.db.get(extra)).toBeUndefined();
    expect(t.store.latestHeight).toBe(2);
  });

  it("resumes height, app hash and earliest height after reopening", async () => {
    await t.reopen({ strategy: "custom", keepRecent: 2, interval: 10 });
    let hash: Uint8Array = new Uint8Array();
    for (let h = 1; h <= 11; h++) hash = await commitNext(t.store, [["s", "k", `v${h}`]]);
    expect(t.store.latestAppHash).toEqual(hash);
    await t.reopen();
    expect(t.store.latestHeight).toBe(11);
    expect(t.store.latestAppHash).toEqual(hash);
    expect(t.store.earliestHeight).toBe(9);
    expect(text(await t.store.get("s", bytes("k"), 9))).toBe("v9");
    await expect(t.store.get("s", bytes("k"), 8)).rejects.toMatchObject({ code: "PRUNED_HEIGHT" });
  });

  it("serves read-only views at the latest or a retained height", async () => {
    await commitNext(t.store, [["s", "a", "1"]]);
    await commitNext(t.store, [["s", "a", "2"]]);
    const old = t.store.view(1).store("s");
    expect(text(await old.get(bytes("a")))).toBe("1");
    expect(await old.has(bytes("a"))).toBe(true);
    expect(await old.has(bytes("b"))).toBe(false);
    expect(await collect(old.iterate({}))).toEqual([[hex(bytes("a")), "1"]]);
    expect(text(await t.store.view().store("s").get(bytes("a")))).toBe("2");
    expect(() => t.store.view().store("s").set(bytes("q"), bytes("Q"))).toThrow(/read-only/);
    expect(() => t.store.view().store("s").delete(bytes("a"))).toThrow(/read-only/);
  });

  it("keeps a view pinned to the latest height on that height while later commits land, reads and iterations alike", async () => {
    const writes = (n: number, v: string): Write[] =>
      Array.from({ length: n }, (_, i) => ["s", `k${String(i).padStart(4, "0")}`, v]);
    // More keys than LevelDB's iterator fetches ahead (1 then 1000), so part of the walk is read after the commit.
    const n = 1500;
    await commitNext(t.store, writes(n, "1"));
    const pinned = t.store.view(1).store("s");
    // Started at height 1, then the next height lands in the middle of the walk and in the middle of reads.
    const seen: string[] = [];
    let committed = false;
    for await (const [, v] of pinned.iterate({})) {
      seen.push(text(v)!);
      if (seen.length === 10) {
        await commitNext(t.store, [...writes(n, "2"), ["s", "k9999", "new"]]);
        committed = true;
        expect(text(await pinned.get(bytes("k0000")))).toBe("1");
      }
    }
    expect(committed).toBe(true);
    expect(seen).toEqual(Array(n).fill("1"));
    // A walk started after the commit seeks height 1's versions: same answer.
    expect((await collect(pinned.iterate({}))).map(([, v]) => v)).toEqual(Array(n).fill("1"));
    expect(text(await pinned.get(bytes("k9999")))).toBeUndefined();
    // A view pinned to the new latest height sees the new values.
    const latest = t.store.view(2).store("s");
    expect((await collect(latest.iterate({ reverse: true })))[0]).toEqual([hex(bytes("k9999")), "new"]);
    expect(text(await latest.get(bytes("k0000")))).toBe("2");
  });
});
