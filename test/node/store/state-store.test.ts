import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../node/src/logging/logger.js";
import { computeAppHash } from "../../../node/src/store/app-hash.js";
import { CacheMultiStore } from "../../../node/src/store/cache-multi-store.js";
import { ChangeSet } from "../../../node/src/store/change-set.js";
import { KEYSPACE } from "../../../node/src/store/keyspaces.js";
import { type PruningOptions, pruningFromAppConfig } from "../../../node/src/store/pruning.js";
import { StateStore } from "../../../node/src/store/state-store.js";
import { StoreHeightError } from "../../../node/src/store/store-errors.js";

const b = (s: string) => new TextEncoder().encode(s);
const s = (u?: Uint8Array) => (u ? new TextDecoder().decode(u) : undefined);
const NOTHING: PruningOptions = { strategy: "nothing", keepRecent: 0, interval: 0 };

async function collect(it: AsyncIterable<[Uint8Array, Uint8Array]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of it) out.push([Buffer.from(k).toString("hex"), s(v)!]);
  return out;
}

describe("StateStore", () => {
  let dir: string;
  let store: StateStore;
  const open = (pruning: PruningOptions = NOTHING) =>
    StateStore.open({ dir, pruning }, { logger: silentLogger });

  /** Commits the next height with the given writes (null deletes). */
  async function commitWrites(writes: [string, string | Uint8Array, string | null][]): Promise<void> {
    const cs = new ChangeSet();
    for (const [st, k, v] of writes) cs.set(st, typeof k === "string" ? b(k) : k, v === null ? null : b(v));
    await store.commit(store.latestHeight + 1, cs);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "store-"));
    store = await open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads latest values and old values at their heights", async () => {
    await commitWrites([
      ["bank", "a", "1"],
      ["acc", "a", "other store"],
    ]);
    await commitWrites([["bank", "a", "2"]]);
    await commitWrites([["bank", "a", null]]);
    await commitWrites([["bank", "b", "x"]]);
    expect(s(await store.get("bank", b("a")))).toBeUndefined();
    expect(s(await store.get("bank", b("a"), 1))).toBe("1");
    expect(s(await store.get("bank", b("a"), 2))).toBe("2");
    expect(s(await store.get("bank", b("a"), 3))).toBeUndefined();
    expect(s(await store.get("bank", b("a"), 4))).toBeUndefined();
    expect(s(await store.get("acc", b("a"), 4))).toBe("other store");
  });

  it("iterates prefixes at a height, with 0x00 bytes and keys that prefix each other", async () => {
    const k = (...bytes: number[]) => Uint8Array.from(bytes);
    const cs = new ChangeSet();
    for (const key of [k(1), k(1, 0), k(1, 0, 0), k(1, 0xff), k(1, 0, 5), k(2)])
      cs.set("s", key, b(Buffer.from(key).toString("hex")));
    await store.commit(1, cs);
    const later = new ChangeSet();
    later.set("s", k(1, 0), null);
    later.set("s", k(1, 0x7f), b("new"));
    await store.commit(2, later);
    const at1 = await collect(store.iterate("s", { prefix: k(1), height: 1 }));
    expect(at1.map(([key]) => key)).toEqual(["01", "0100", "010000", "010005", "01ff"]);
    const at2 = await collect(store.iterate("s", { prefix: k(1), height: 2 }));
    expect(at2.map(([key]) => key)).toEqual(["01", "010000", "010005", "017f", "01ff"]);
    expect(await collect(store.iterate("s", { prefix: k(1) }))).toEqual(at2);
    const rev = await collect(store.iterate("s", { prefix: k(1), height: 2, reverse: true }));
    expect(rev.map(([key]) => key)).toEqual(["01ff", "017f", "010005", "010000", "01"]);
    expect(await collect(store.iterate("s", { prefix: k(1), reverse: true }))).toEqual(rev);
    const ranged = await collect(store.iterate("s", { start: k(1, 0), end: k(1, 0x7f), height: 1 }));
    expect(ranged.map(([key]) => key)).toEqual(["0100", "010000", "010005"]);
  });

  it("refuses future, zero and pruned heights with typed errors", async () => {
    await commitWrites([["s", "a", "1"]]);
    for (const [h, code] of [
      [5, "FUTURE_HEIGHT"],
      [0, "INVALID_HEIGHT"],
      [-1, "INVALID_HEIGHT"],
    ] as const) {
      const e = await store.get("s", b("a"), h).catch((x) => x);
      expect(e).toBeInstanceOf(StoreHeightError);
      expect(e.code).toBe(code);
    }
  });

  it("prunes what no retained height needs and nothing else", async () => {
    await store.close();
    store = await open({ strategy: "custom", keepRecent: 3, interval: 5 });
    await commitWrites([
      ["s", "old", "kept since 1"],
      ["s", "gone", "x"],
    ]);
    for (let h = 2; h <= 10; h++)
      await commitWrites([
        ["s", "hot", `v${h}`],
        ...(h === 4 ? [["s", "gone", null] as [string, string, null]] : []),
      ]);
    expect(store.earliestHeight).toBe(8);
    const e = await store.get("s", b("hot"), 7).catch((x) => x);
    expect(e.code).toBe("PRUNED_HEIGHT");
    expect(e.message).toMatch(/failed to load state at height 7/);
    for (let h = 8; h <= 10; h++) expect(s(await store.get("s", b("hot"), h))).toBe(`v${h}`);
    expect(s(await store.get("s", b("old"), 8))).toBe("kept since 1");
    expect(s(await store.get("s", b("gone"), 8))).toBeUndefined();
    expect((await collect(store.iterate("s", { height: 9 }))).map(([, v]) => v)).toEqual([
      "v9",
      "kept since 1",
    ]);
    // The raw database holds only what reads at 8..10 need: old@1, hot@8, hot@9, hot@10 ("gone" and its tombstone went).
    let versions = 0;
    for await (const _ of store.db.keys({
      gte: Uint8Array.of(KEYSPACE.versions),
      lt: Uint8Array.of(KEYSPACE.versions + 1),
    }))
      versions++;
    expect(versions).toBe(4);
  });

  it("keeps every version with pruning nothing", async () => {
    for (let h = 1; h <= 12; h++) await commitWrites([["s", "k", `v${h}`]]);
    expect(store.earliestHeight).toBe(1);
    expect(s(await store.get("s", b("k"), 1))).toBe("v1");
  });

  it("computes a deterministic, chained app hash and resumes after reopen", async () => {
    const one = new ChangeSet();
    one.set("b", b("y"), b("2"));
    one.set("a", b("x"), b("1"));
    one.set("a", b("z"), null);
    const two = new ChangeSet();
    two.set("a", b("z"), null);
    two.set("a", b("x"), b("1"));
    two.set("b", b("y"), b("2"));
    const prev = new Uint8Array(32);
    expect(computeAppHash(prev, one)).toEqual(computeAppHash(prev, two));
    expect(computeAppHash(new Uint8Array(32).fill(1), one)).not.toEqual(computeAppHash(prev, one));
    const empty = new ChangeSet();
    empty.set("a", b("z"), new Uint8Array());
    const deletion = new ChangeSet();
    deletion.set("a", b("z"), null);
    expect(computeAppHash(prev, empty)).not.toEqual(computeAppHash(prev, deletion));
    const hash = await store.commit(1, one);
    await expect(store.commit(3, two)).rejects.toThrow(/last committed height is 1/);
    await store.close();
    store = await open();
    expect(store.latestHeight).toBe(1);
    expect(store.latestAppHash).toEqual(hash);
  });
});

describe("pruning options", () => {
  it("follows the Cosmos strategies and names bad keys", () => {
    expect(
      pruningFromAppConfig({ pruning: "default", "pruning-keep-recent": "0", "pruning-interval": "0" }),
    ).toEqual({ strategy: "default", keepRecent: 362880, interval: 10 });
    expect(
      pruningFromAppConfig({ pruning: "everything", "pruning-keep-recent": 0, "pruning-interval": 0 })
        .keepRecent,
    ).toBe(2);
    expect(
      pruningFromAppConfig({ pruning: "custom", "pruning-keep-recent": "100", "pruning-interval": "7" }),
    ).toEqual({ strategy: "custom", keepRecent: 100, interval: 7 });
    expect(() =>
      pruningFromAppConfig({ pruning: "custom", "pruning-keep-recent": "x", "pruning-interval": "7" }),
    ).toThrow(/pruning-keep-recent/);
    expect(() =>
      pruningFromAppConfig({ pruning: "custom", "pruning-keep-recent": "10", "pruning-interval": "0" }),
    ).toThrow(/pruning-interval must not be 0/);
  });
});

describe("CacheMultiStore", () => {
  it("branches, merges iteration, discards and writes through", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cache-"));
    const store = await StateStore.open({ dir, pruning: NOTHING }, { logger: silentLogger });
    try {
      const cs = new ChangeSet();
      for (const k of ["a", "c", "e"]) cs.set("s", b(k), b(k.toUpperCase()));
      await store.commit(1, cs);
      const block = new CacheMultiStore(store.view());
      const tx = block.branch();
      tx.store("s").set(b("b"), b("B"));
      tx.store("s").delete(b("c"));
      tx.store("s").set(b("e"), b("E2"));
      expect(await collect(tx.store("s").iterate())).toEqual([
        ["61", "A"],
        ["62", "B"],
        ["65", "E2"],
      ]);
      expect((await collect(tx.store("s").iterate({ reverse: true }))).map(([, v]) => v)).toEqual([
        "E2",
        "B",
        "A",
      ]);
      expect(await collect(block.store("s").iterate())).toEqual([
        ["61", "A"],
        ["63", "C"],
        ["65", "E"],
      ]);
      const discarded = block.branch();
      discarded.store("s").set(b("z"), b("Z"));
      tx.write();
      expect(s(await block.store("s").get(b("c")))).toBeUndefined();
      expect(s(await block.store("s").get(b("z")))).toBeUndefined();
      const changes = block
        .changeSet()
        .entries()
        .map((c) => [s(c.key), s(c.value ?? undefined) ?? null]);
      expect(changes).toEqual([
        ["b", "B"],
        ["c", null],
        ["e", "E2"],
      ]);
      expect(() => store.view().store("s").set(b("q"), b("Q"))).toThrow(/read-only/);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
