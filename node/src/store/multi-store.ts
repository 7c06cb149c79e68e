/** Key range of an iteration: `start` inclusive, `end` exclusive, all within `prefix`; keys are full store keys. */
export interface IterateOptions {
  prefix?: Uint8Array;
  start?: Uint8Array;
  end?: Uint8Array;
  reverse?: boolean;
}

/** One named store as modules see it. */
export interface KVStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  has(key: Uint8Array): Promise<boolean>;
  set(key: Uint8Array, value: Uint8Array): void;
  delete(key: Uint8Array): void;
  iterate(opts?: IterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
}

/** All named stores at one point in time. */
export interface MultiStore {
  store(name: string): KVStore;
}
