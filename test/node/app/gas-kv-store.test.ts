import { create } from "@bufbuild/protobuf";
import { PageRequestSchema } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GasKVStore } from "../../../node/src/app/gas-kv-store.js";
import { GasMeter, KV_GAS } from "../../../node/src/app/gas-meter.js";
import { paginate } from "../../../node/src/app/pagination.js";
import { CacheMultiStore } from "../../../node/src/store/cache-multi-store.js";
import type { IterateOptions, KVStore } from "../../../node/src/store/multi-store.js";
import {
  bytes,
  commitNext,
  openTempStateStore,
  type TempStateStore,
  text,
} from "../store/temp-state-store.js";

/** The committed "bank" store, counting how many of its iterations were closed before their end. */
function closeCounting(inner: KVStore): { store: KVStore; closed: () => number } {
  let closed = 0;
  const store: KVStore = {
    get: (k) => inner.get(k),
    has: (k) => inner.has(k),
    set: (k, v) => inner.set(k, v),
    delete: (k) => inner.delete(k),
    iterate: (opts?: IterateOptions) => ({
      [Symbol.asyncIterator]: () => {
        const it = inner.iterate(opts)[Symbol.asyncIterator]();
        return {
          next: () => it.next(),
          return: async () => {
            closed++;
            await it.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    }),
  };
  return { store, closed: () => closed };
}

// The gas-metered store a query or tx reads through: what it charges for an iteration, and that an
// iteration it stops (out of gas) or a loop that stops early closes the store's iterator.
describe("GasKVStore iteration", () => {
  let t: TempStateStore;
  beforeEach(async () => {
    t = await openTempStateStore();
    await commitNext(t.store, [
      ["bank", "a1", "10"],
      ["bank", "a2", "200"],
      ["bank", "a3", "3000"],
    ]);
  });
  afterEach(async () => {
    await t.cleanup();
  });
  const committed = () => new CacheMultiStore(t.store.view()).store("bank");
  const entryGas = (k: string, v: string) =>
    KV_GAS.iterNextCostFlat + KV_GAS.readCostPerByte * (k.length + v.length);

  it("charges each entry it hands out, in order, and pages through the same entries", async () => {
    const gas = new GasMeter(0);
    const seen: string[] = [];
    for await (const [k, v] of new GasKVStore(committed(), gas).iterate({ prefix: bytes("a") }))
      seen.push(`${text(k)}=${text(v)}`);
    expect(seen).toEqual(["a1=10", "a2=200", "a3=3000"]);
    expect(gas.consumed).toBe(entryGas("a1", "10") + entryGas("a2", "200") + entryGas("a3", "3000"));

    const store = new GasKVStore(committed(), new GasMeter(0));
    const first = await paginate(
      store,
      bytes("a"),
      create(PageRequestSchema, { limit: 2n }),
      (k, v) => `${text(k)}=${text(v)}`,
    );
    expect(first.items).toEqual(["1=10", "2=200"]);
    expect(text(first.page.nextKey)).toBe("3");
    const rest = await paginate(
      store,
      bytes("a"),
      create(PageRequestSchema, { key: first.page.nextKey }),
      (k) => text(k),
    );
    expect(rest.items).toEqual(["3"]);
  });

  it("closes the store's iterator when gas runs out in the middle, and when a loop stops early", async () => {
    const spy = closeCounting(committed());
    const gas = new GasMeter(entryGas("a1", "10") + KV_GAS.iterNextCostFlat);
    const seen: string[] = [];
    await expect(async () => {
      for await (const [k] of new GasKVStore(spy.store, gas).iterate()) seen.push(text(k)!);
    }).rejects.toThrow(/out of gas in location: ValuePerByte/);
    expect(seen).toEqual(["a1"]);
    expect(spy.closed()).toBe(1);

    for await (const _ of new GasKVStore(spy.store, new GasMeter(0)).iterate()) break;
    expect(spy.closed()).toBe(2);
    for await (const _ of new GasKVStore(spy.store, new GasMeter(0)).iterate());
    expect(spy.closed()).toBe(2);
  });
});
