import type { IterateOptions, KVStore } from "./multi-store.js";
import type { StateStore } from "./state-store.js";

/** One committed store read through StateStore; writes are refused (branch it with CacheMultiStore first). */
export class CommittedKVStore implements KVStore {
  constructor(
    private readonly state: StateStore,
    private readonly name: string,
    /** undefined = the latest committed state at the time of each read. */
    private readonly height: number | undefined,
  ) {}

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.state.get(this.name, key, this.height);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  set(): void {
    throw new Error(`committed store ${this.name} is read-only; write through a CacheMultiStore branch`);
  }

  delete(): void {
    throw new Error(`committed store ${this.name} is read-only; write through a CacheMultiStore branch`);
  }

  iterate(opts: IterateOptions = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    // Spelled out: cheaper than a spread on a path every paged query takes.
    const { prefix, start, end, reverse } = opts;
    return this.state.iterate(this.name, { prefix, start, end, reverse, height: this.height });
  }
}
