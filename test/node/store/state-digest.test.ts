import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appHashOf } from "../../../node/src/store/app-hash.js";
import { StateDigest } from "../../../node/src/store/state-digest.js";
import { stateRollbackOps } from "../../../node/src/store/state-rollback.js";
import { STATE_DIGEST_KEY } from "../../../node/src/store/state-store-keys.js";
import {
  bytes,
  commitNext,
  hex,
  openTempStateStore,
  type TempStateStore,
  type Write,
} from "./temp-state-store.js";

/** The digest of a whole state, summed from scratch. */
async function summed(t: TempStateStore): Promise<StateDigest> {
  const d = StateDigest.empty();
  for (const store of ["bank", "auth"]) for await (const [k, v] of t.store.iterate(store)) d.add(store, k, v);
  return d;
}

const write = fc.tuple(
  fc.constantFrom("bank", "auth"),
  fc.constantFrom("a", "b", "c", "d", "\0", "a\0"),
  fc.option(fc.constantFrom("1", "2", "", "xyz"), { nil: null }),
) as fc.Arbitrary<Write>;

describe("the app hash commits to the whole state", () => {
  let t: TempStateStore;
  beforeEach(async () => {
    t = await openTempStateStore();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  it("each block's app hash is the hash of the digest summed over its whole state", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(write, { maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        async (blocks) => {
          await t.cleanup();
          t = await openTempStateStore();
          for (const writes of blocks) {
            const appHash = await commitNext(t.store, writes);
            expect(hex(appHash)).toBe(hex(appHashOf(await summed(t))));
          }
          // The digest survives a reopen, and a rollback gives back the previous state's.
          await t.reopen();
          expect(t.store.stateDigest.equals(await summed(t))).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a rollback writes the digest of the state it returns to", async () => {
    await commitNext(t.store, [
      ["bank", "a", "1"],
      ["bank", "b", "2"],
    ]);
    const before = await summed(t);
    await commitNext(t.store, [
      ["bank", "a", "3"],
      ["bank", "b", null],
      ["auth", "c", "4"],
    ]);
    await t.store.db.batch(await stateRollbackOps(t.store, appHashOf(before)));
    await t.reopen();
    expect(t.store.latestHeight).toBe(1);
    expect(t.store.stateDigest.equals(before)).toBe(true);
    expect(t.store.stateDigest.equals(await summed(t))).toBe(true);
  });

  it("a home whose digest record is missing (an older binary's) is summed once when opened", async () => {
    await commitNext(t.store, [
      ["bank", "a", "1"],
      ["auth", "z", "9"],
    ]);
    const d = t.store.stateDigest;
    await t.store.db.del(STATE_DIGEST_KEY);
    await t.reopen();
    expect(t.store.stateDigest.equals(d)).toBe(true);
    expect(await t.store.db.get(STATE_DIGEST_KEY)).toBeDefined();
  });

  it("is the same set of entries whatever the order, and tells entries apart by store, key and value", () => {
    const a = StateDigest.empty();
    const b = StateDigest.empty();
    a.add("bank", bytes("k"), bytes("v"));
    a.add("auth", bytes("x"), bytes("y"));
    b.add("auth", bytes("x"), bytes("y"));
    b.add("bank", bytes("k"), bytes("v"));
    expect(a.equals(b)).toBe(true);
    b.remove("bank", bytes("k"), bytes("v"));
    b.add("bank", bytes("k"), bytes("w"));
    expect(a.equals(b)).toBe(false);
    const c = StateDigest.empty();
    c.add("ban", bytes("kk"), bytes("v"));
    const e = StateDigest.empty();
    e.add("bank", bytes("k"), bytes("v"));
    expect(c.equals(e)).toBe(false);
    expect(StateDigest.fromBytes(a.bytes()).equals(a)).toBe(true);
  });
});
