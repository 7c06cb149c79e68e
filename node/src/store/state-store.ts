import { mkdirSync } from "node:fs";
import { Level } from "level";
import type { Logger } from "../logging/logger.js";
import { computeAppHash } from "./app-hash.js";
import type { ChangeSet } from "./change-set.js";
import {
  changeKey,
  changesUpTo,
  latestKey,
  latestStorePrefix,
  parseChangeKey,
  parseVersionKey,
  prefixEnd,
  versionKey,
  versionsOfKey,
  versionsPrefix,
} from "./key-encoding.js";
import { KEYSPACE } from "./keyspaces.js";
import type { IterateOptions, KVStore, MultiStore } from "./multi-store.js";
import type { PruningOptions } from "./pruning.js";
import { StoreHeightError, StoreLockedError } from "./store-errors.js";

export type BatchOp = { type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array };

interface CommitMeta {
  height: number;
  appHash: string;
  earliest: number;
}

const META_KEY = Uint8Array.from([KEYSPACE.meta, ...new TextEncoder().encode("commit")]);
const TOMBSTONE = 0x00;
const VALUE = 0x01;

type Db = Level<Uint8Array, Uint8Array>;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Converts a range within a store to absolute LevelDB bounds under `base` (the store's key prefix). */
function bounds(base: Uint8Array, opts: IterateOptions): { gte: Uint8Array; lt?: Uint8Array } {
  const prefix = opts.prefix ?? new Uint8Array();
  let gte = concat(base, prefix);
  let lt = prefixEnd(gte);
  if (opts.start && Buffer.compare(concat(base, opts.start), gte) > 0) gte = concat(base, opts.start);
  if (opts.end) {
    const end = concat(base, opts.end);
    if (!lt || Buffer.compare(end, lt) < 0) lt = end;
  }
  return { gte, lt };
}

/**
 * Versioned key-value state on one LevelDB. Latest values are one `get`; a value at a retained height is one
 * seek. A block's writes, its records and the commit meta land in one atomic batch.
 */
export class StateStore {
  private meta: CommitMeta;

  private constructor(
    readonly db: Db,
    readonly dir: string,
    private readonly pruning: PruningOptions,
    private readonly logger: Logger,
    meta: CommitMeta,
  ) {
    this.meta = meta;
  }

  static async open(
    opts: { dir: string; pruning: PruningOptions },
    deps: { logger: Logger },
  ): Promise<StateStore> {
    mkdirSync(opts.dir, { recursive: true });
    const db: Db = new Level<Uint8Array, Uint8Array>(opts.dir, {
      keyEncoding: "view",
      valueEncoding: "view",
    });
    try {
      await db.open();
    } catch (e) {
      const cause = String((e as { cause?: Error }).cause?.message ?? (e as Error).message);
      if (/lock/i.test(cause)) throw new StoreLockedError(opts.dir);
      throw new Error(`cannot open database ${opts.dir}: ${cause}`);
    }
    const raw = await db.get(META_KEY);
    const meta: CommitMeta = raw
      ? (JSON.parse(new TextDecoder().decode(raw)) as CommitMeta)
      : { height: 0, appHash: "", earliest: 1 };
    return new StateStore(db, opts.dir, opts.pruning, deps.logger, meta);
  }

  get latestHeight(): number {
    return this.meta.height;
  }

  get latestAppHash(): Uint8Array {
    return new Uint8Array(Buffer.from(this.meta.appHash, "hex"));
  }

  /** The oldest height whose state can still be read. */
  get earliestHeight(): number {
    return this.meta.earliest;
  }

  /** Throws unless `height` is committed and not pruned. */
  checkHeight(height: number): void {
    if (!Number.isSafeInteger(height) || height <= 0) {
      throw new StoreHeightError("INVALID_HEIGHT", `invalid height ${height}: heights start at 1`);
    }
    if (height > this.meta.height) {
      throw new StoreHeightError(
        "FUTURE_HEIGHT",
        `cannot query with height in the future; please provide a valid height (latest height: ${this.meta.height})`,
      );
    }
    if (height < this.meta.earliest) {
      throw new StoreHeightError(
        "PRUNED_HEIGHT",
        `failed to load state at height ${height}; version does not exist (latest height: ${this.meta.height}, earliest available height: ${this.meta.earliest})`,
      );
    }
  }

  /** The latest value, or the value at `height` (one seek). */
  async get(store: string, key: Uint8Array, height?: number): Promise<Uint8Array | undefined> {
    if (height === undefined) {
      const v = await this.db.get(latestKey(store, key));
      return v === undefined ? undefined : new Uint8Array(v);
    }
    this.checkHeight(height);
    let found: Uint8Array | undefined;
    for await (const [, v] of this.db.iterator({
      gte: versionsOfKey(store, key),
      lte: versionKey(store, key, height),
      reverse: true,
      limit: 1,
    })) {
      found = v[0] === VALUE ? new Uint8Array(v.subarray(1)) : undefined;
    }
    // Pruning may have run while we read; an answer from a pruned height could be wrong.
    this.checkHeight(height);
    return found;
  }

  /** Keys of a store in order, at the latest height or at a retained one. */
  async *iterate(
    store: string,
    opts: IterateOptions & { height?: number } = {},
  ): AsyncIterable<[Uint8Array, Uint8Array]> {
    if (opts.height === undefined) {
      const base = latestStorePrefix(store);
      for await (const [k, v] of this.db.iterator({
        ...bounds(base, opts),
        reverse: opts.reverse ?? false,
      })) {
        yield [new Uint8Array(k.subarray(base.length)), new Uint8Array(v)];
      }
      return;
    }
    const height = opts.height;
    this.checkHeight(height);
    // Escaping preserves order and prefixes, so escaped bounds select exactly the keys in range.
    const base = versionsPrefix(store, new Uint8Array());
    const rel = (k?: Uint8Array) => k && versionsPrefix(store, k).subarray(base.length);
    const range = bounds(base, { prefix: rel(opts.prefix), start: rel(opts.start), end: rel(opts.end) });
    let currentKey: Uint8Array | undefined;
    let best: Uint8Array | undefined;
    let bestSet = false;
    const flush = (): [Uint8Array, Uint8Array] | undefined =>
      currentKey && bestSet && best && best[0] === VALUE
        ? [currentKey, new Uint8Array(best.subarray(1))]
        : undefined;
    for await (const [k, v] of this.db.iterator({ ...range, reverse: opts.reverse ?? false })) {
      const parsed = parseVersionKey(store, k);
      if (!currentKey || Buffer.compare(parsed.key, currentKey) !== 0) {
        const out = flush();
        if (out) {
          this.checkHeight(height);
          yield out;
        }
        currentKey = parsed.key;
        best = undefined;
        bestSet = false;
      }
      if (parsed.height > height) continue;
      // Forward order meets versions oldest first: keep the last one <= height. Reverse meets newest first.
      if (!opts.reverse || !bestSet) {
        best = v;
        bestSet = true;
      }
    }
    const out = flush();
    if (out) {
      this.checkHeight(height);
      yield out;
    }
  }

  /** A read-only view of all stores at the latest height, or pinned to a retained height. */
  view(height?: number): MultiStore {
    if (height !== undefined) this.checkHeight(height);
    return { store: (name) => new CommittedKVStore(this, name, height) };
  }

  /** Writes a block's state changes with the caller's records in one batch, then prunes when due. */
  async commit(height: number, changes: ChangeSet, extraOps: BatchOp[] = []): Promise<Uint8Array> {
    if (height !== this.meta.height + 1) {
      throw new Error(`cannot commit height ${height}: the last committed height is ${this.meta.height}`);
    }
    const appHash = computeAppHash(this.latestAppHash, changes);
    const batch = this.db.batch();
    for (const c of changes.entries()) {
      if (c.value === null) batch.del(latestKey(c.store, c.key));
      else batch.put(latestKey(c.store, c.key), c.value);
      const tagged = c.value === null ? Uint8Array.of(TOMBSTONE) : concat(Uint8Array.of(VALUE), c.value);
      batch.put(versionKey(c.store, c.key, height), tagged);
      if (this.pruning.keepRecent > 0) batch.put(changeKey(height, c.store, c.key), new Uint8Array());
    }
    for (const op of extraOps) {
      if (op.type === "put") batch.put(op.key, op.value);
      else batch.del(op.key);
    }
    const meta: CommitMeta = {
      height,
      appHash: Buffer.from(appHash).toString("hex"),
      earliest: this.meta.earliest,
    };
    batch.put(META_KEY, new TextEncoder().encode(JSON.stringify(meta)));
    await batch.write();
    this.meta = meta;
    if (this.pruning.keepRecent > 0 && this.pruning.interval > 0 && height % this.pruning.interval === 0) {
      await this.prune(height - this.pruning.keepRecent + 1);
    }
    return appHash;
  }

  /**
   * Drops versions that no read at `newEarliest` or later can reach. A key written at h' <= newEarliest makes
   * its versions below h' unreachable; the change log names those keys, so the cost follows what changed.
   */
  private async prune(newEarliest: number): Promise<void> {
    if (newEarliest <= this.meta.earliest) return;
    const started = performance.now();
    // Readers check `earliest` after each read, so raise it before anything is deleted.
    const meta: CommitMeta = { ...this.meta, earliest: newEarliest };
    this.meta = meta;
    const batch = this.db.batch();
    let removed = 0;
    for await (const [k] of this.db.iterator({
      ...changesUpTo(newEarliest),
      values: false,
    } as never) as AsyncIterable<[Uint8Array, Uint8Array]>) {
      const { height: changedAt, store, key } = parseChangeKey(k);
      batch.del(k);
      for await (const [vk, vv] of this.db.iterator({
        gte: versionsOfKey(store, key),
        lte: versionKey(store, key, changedAt),
      })) {
        const h = parseVersionKey(store, vk).height;
        // The version at changedAt stays unless it is a deletion: no later read needs a tombstone with nothing below it.
        if (h < changedAt || (h === changedAt && vv[0] === TOMBSTONE)) {
          batch.del(vk);
          removed++;
        }
      }
    }
    batch.put(META_KEY, new TextEncoder().encode(JSON.stringify(meta)));
    await batch.write();
    this.logger.debug("pruned state", {
      earliest: newEarliest,
      removed,
      ms: Math.round(performance.now() - started),
    });
  }

  async close(): Promise<void> {
    if (this.db.status === "open") await this.db.close();
  }
}

/** A committed store read through StateStore; writes are refused (branch it with CacheMultiStore first). */
class CommittedKVStore implements KVStore {
  constructor(
    private readonly state: StateStore,
    private readonly name: string,
    private readonly height: number | undefined,
  ) {}

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.state.get(this.name, key, this.height);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  set(): void {
    throw new Error("committed state is read-only");
  }

  delete(): void {
    throw new Error("committed state is read-only");
  }

  iterate(opts: IterateOptions = {}): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.state.iterate(this.name, { ...opts, height: this.height });
  }
}
