import type { IterateOptions, KVStore } from "../store/multi-store.js";
import { type GasMeter, KV_GAS } from "./gas-meter.js";

/** Charges gas for each store access, as Cosmos' gaskv store does, so gas reflects the work a tx causes. */
export class GasKVStore implements KVStore {
  constructor(
    private readonly inner: KVStore,
    private readonly gas: GasMeter,
  ) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.gas.consume(KV_GAS.readCostFlat, "ReadFlat");
    const v = await this.inner.get(key);
    this.gas.consume(KV_GAS.readCostPerByte * (key.length + (v?.length ?? 0)), "ReadPerByte");
    return v;
  }

  async has(key: Uint8Array): Promise<boolean> {
    this.gas.consume(KV_GAS.hasCost, "Has");
    return this.inner.has(key);
  }

  set(key: Uint8Array, value: Uint8Array): void {
    this.gas.consume(KV_GAS.writeCostFlat, "WriteFlat");
    this.gas.consume(KV_GAS.writeCostPerByte * (key.length + value.length), "WritePerByte");
    this.inner.set(key, value);
  }

  delete(key: Uint8Array): void {
    this.gas.consume(KV_GAS.deleteCost, "Delete");
    this.inner.delete(key);
  }

  /** The inner iteration, charged entry by entry; an iterator object rather than a generator, one step less. */
  iterate(opts: IterateOptions = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    return {
      [Symbol.asyncIterator]: () => {
        const inner = this.inner.iterate(opts)[Symbol.asyncIterator]();
        const charge = (r: IteratorResult<[Uint8Array, Uint8Array]>) => {
          if (r.done) return r;
          try {
            this.gas.consume(KV_GAS.iterNextCostFlat, "IterNextFlat");
            this.gas.consume(
              KV_GAS.readCostPerByte * (r.value[0].length + r.value[1].length),
              "ValuePerByte",
            );
          } catch (e) {
            // Out of gas: the loop sees the error and will not close the store's iterator itself.
            return Promise.resolve(inner.return?.()).then(() => Promise.reject(e));
          }
          return r;
        };
        return {
          next: () => inner.next().then(charge),
          // A loop that stops early closes the store's iterator.
          return: async () => {
            await inner.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }
}
